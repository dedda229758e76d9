// The admin audit's SQL (./audit.ts decides what an entry says): append-only, read newest first.
import type { Queryable } from '../../db/db.ts';

export interface AdminAuditEntry {
  id: string;
  actor_kind: string;
  actor_id: string | null;
  actor: string;
  session_id: string | null;
  action: string;
  target: string | null;
  status: number;
  request_id: string | null;
  at: Date;
}

/** Appends one entry: JSON of its columns, named (eleven are too many to number). */
export async function insertAdminAudit(db: Queryable, entry: string): Promise<void> {
  await db.query(
    `INSERT INTO admin_audit (institution_id, actor_kind, actor_id, actor, session_id, action, target, status,
                              request_id, at, subject)
     SELECT * FROM json_to_record($1::json) AS r(
       institution_id uuid, actor_kind text, actor_id uuid, actor text, session_id uuid,
       action text, target text, status integer, request_id text, at timestamptz, subject text)`,
    [entry],
  );
}

/** The words naming a thing of the institution: its address or name (null when there is none such). */
export async function selectSubject(
  db: Queryable,
  institutionId: string,
  kind: 'webhook' | 'person' | 'cohort' | 'calendar_feed',
  id: string,
): Promise<string | null | undefined> {
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
  return rows[0]?.subject;
}

/** A page of the institution's admin audit, newest first; `before` is the previous page's last id. */
export async function selectAdminAuditPage(
  db: Queryable,
  institutionId: string,
  limit: number,
  before: string | null,
): Promise<AdminAuditEntry[]> {
  const { rows } = await db.query<AdminAuditEntry>(
    `SELECT id, actor_kind, actor_id, actor, session_id, action, target, status, request_id, at
     FROM admin_audit a
     WHERE institution_id = $1
       AND ($3::uuid IS NULL OR (a.at, a.id) < (SELECT at, id FROM admin_audit WHERE id = $3::uuid))
     ORDER BY at DESC, id DESC LIMIT $2`,
    [institutionId, limit, before],
  );
  return rows;
}
