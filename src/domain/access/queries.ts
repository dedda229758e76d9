// The admin audit's SQL: one append, the words naming a subject, a page of entries.
import type { Queryable } from '../../db/db.ts';
import type { AdminAuditEntry, AdminAuditRow, SubjectKind } from './model.ts';

export async function insertAdminAudit(db: Queryable, row: AdminAuditRow): Promise<void> {
  await db.query(
    `INSERT INTO admin_audit (institution_id, actor_kind, actor_id, actor, session_id, action, target, status,
                              request_id, at, subject)
     SELECT * FROM json_to_record($1::json) AS r(
       institution_id uuid, actor_kind text, actor_id uuid, actor text, session_id uuid,
       action text, target text, status integer, request_id text, at timestamptz, subject text)`,
    [JSON.stringify(row)],
  );
}

export async function selectAuditSubject(
  db: Queryable,
  institutionId: string,
  kind: SubjectKind,
  id: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ subject: string | null }>(
    `SELECT CASE $2::text
              WHEN 'webhook' THEN (SELECT url FROM webhook_endpoints WHERE institution_id = $1 AND id = $3::uuid)
              WHEN 'person' THEN (SELECT name FROM people WHERE institution_id = $1 AND id = $3::uuid)
              WHEN 'cohort' THEN (SELECT name FROM cohorts WHERE institution_id = $1 AND id = $3::uuid)
              WHEN 'calendar_feed' THEN (SELECT COALESCE(name, url) FROM calendar_feeds
                                         WHERE institution_id = $1 AND id = $3::uuid)
            END AS subject`,
    [institutionId, kind, id],
  );
  return rows[0]?.subject ?? undefined;
}

export async function selectAdminAudit(
  db: Queryable,
  institutionId: string,
  page: { limit: number; before?: string },
): Promise<AdminAuditEntry[]> {
  const { rows } = await db.query<AdminAuditEntry>(
    `SELECT id, actor_kind, actor_id, actor, session_id, action, target, status, request_id, at
     FROM admin_audit a
     WHERE institution_id = $1
       AND ($3::uuid IS NULL OR (a.at, a.id) < (SELECT at, id FROM admin_audit WHERE id = $3::uuid))
     ORDER BY at DESC, id DESC LIMIT $2`,
    [institutionId, page.limit, page.before ?? null],
  );
  return rows;
}
