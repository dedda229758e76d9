// The access log's SQL (../access-log.ts decides what is recorded): one INSERT per view, and
// the two reads of it (who opened a request; the institution's log, newest first).
import type { Queryable } from '../../../db/db.ts';

export type AccessWhat = 'help_request' | 'student' | 'export';

export interface AccessEntry {
  id: number;
  actor_kind: string;
  actor: string;
  what: AccessWhat;
  help_request_id: string | null;
  student_id: string | null;
  surface: string;
  at: Date;
}

export interface SeenBy {
  actor: string;
  views: number;
  last_at: Date;
}

/**
 * Appends one view (JSON of its columns), unless the request or student it names is not the
 * institution's.
 */
export async function insertAccess(db: Queryable, view: string): Promise<void> {
  await db.query(
    `INSERT INTO access_log (institution_id, actor_kind, actor_id, actor, what, help_request_id, student_id, surface, at)
     SELECT * FROM json_to_record($1::json) AS r(institution_id uuid, actor_kind text, actor_id uuid, actor text,
       what text, help_request_id uuid, student_id uuid, surface text, at timestamptz)
     WHERE (r.help_request_id IS NULL OR EXISTS (SELECT 1 FROM help_requests h
              WHERE h.id = r.help_request_id AND h.institution_id = r.institution_id))
       AND (r.student_id IS NULL OR EXISTS (SELECT 1 FROM students s
              WHERE s.id = r.student_id AND s.institution_id = r.institution_id))`,
    [view],
  );
}

export async function selectSeenBy(
  db: Queryable,
  institutionId: string,
  helpRequestId: string,
  limit: number,
): Promise<SeenBy[]> {
  const { rows } = await db.query<SeenBy>(
    `SELECT actor, count(*)::int AS views, max(at) AS last_at FROM access_log
     WHERE help_request_id = $2 AND institution_id = $1
     GROUP BY actor ORDER BY max(at) DESC LIMIT $3`,
    [institutionId, helpRequestId, limit],
  );
  return rows;
}

export async function selectAccessPage(
  db: Queryable,
  institutionId: string,
  limit: number,
  before: number | null,
): Promise<AccessEntry[]> {
  const { rows } = await db.query<AccessEntry>(
    `SELECT id, actor_kind, actor, what, help_request_id, student_id, surface, at FROM access_log a
     WHERE institution_id = $1
       AND ($3::bigint IS NULL OR (a.at, a.id) < (SELECT at, id FROM access_log WHERE id = $3::bigint))
     ORDER BY at DESC, id DESC LIMIT $2`,
    [institutionId, limit, before],
  );
  return rows;
}
