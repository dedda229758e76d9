// Who looked (FERPA's record of disclosures): each opening of a help request, a student's page or
// a student's export is one row (who, when, what; never what the page showed), written by one
// INSERT beside the page's own reads. Shown as "seen by" on a request's page and on the audit
// page; kept for the access-log retention period; an erasure keeps the row but forgets the student.
import type { Queryable } from '../../db/db.ts';
import type { Caller } from '../access/policy.ts';

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
 * Records one view, run beside the page's own reads: a request or student that is not the
 * institution's (the page answers 404) records nothing. Students reading their own requests are
 * not recorded (they are the subject).
 */
export async function recordAccess(
  db: Queryable,
  view: {
    caller: Caller;
    institutionId: string;
    what: AccessWhat;
    helpRequestId?: string;
    studentId?: string;
    surface: 'console' | 'api';
    at: Date;
  },
): Promise<void> {
  const { caller } = view;
  if (caller.kind === 'student') return;
  await db.query(
    `INSERT INTO access_log (institution_id, actor_kind, actor_id, actor, what, help_request_id, student_id, surface, at)
     SELECT * FROM json_to_record($1::json) AS r(institution_id uuid, actor_kind text, actor_id uuid, actor text,
       what text, help_request_id uuid, student_id uuid, surface text, at timestamptz)
     WHERE (r.help_request_id IS NULL OR EXISTS (SELECT 1 FROM help_requests h
              WHERE h.id = r.help_request_id AND h.institution_id = r.institution_id))
       AND (r.student_id IS NULL OR EXISTS (SELECT 1 FROM students s
              WHERE s.id = r.student_id AND s.institution_id = r.institution_id))`,
    [
      JSON.stringify({
        institution_id: view.institutionId,
        actor_kind: caller.kind,
        actor_id: caller.kind === 'person' ? caller.personId : (caller.personId ?? null),
        actor: caller.actor,
        what: view.what,
        help_request_id: view.helpRequestId ?? null,
        student_id: view.studentId ?? null,
        surface: view.surface,
        at: view.at.toISOString(),
      }),
    ],
  );
}

/** Who opened a request, most recent first (one row per person). */
export async function seenBy(db: Queryable, institutionId: string, helpRequestId: string, limit = 20) {
  const { rows } = await db.query<SeenBy>(
    `SELECT actor, count(*)::int AS views, max(at) AS last_at FROM access_log
     WHERE help_request_id = $2 AND institution_id = $1
     GROUP BY actor ORDER BY max(at) DESC LIMIT $3`,
    [institutionId, helpRequestId, limit],
  );
  return rows;
}

/** The institution's access log, newest first; `before` is the last id of the previous page. */
export async function listAccess(
  db: Queryable,
  institutionId: string,
  page: { limit: number; before?: number },
) {
  const { rows } = await db.query<AccessEntry>(
    `SELECT id, actor_kind, actor, what, help_request_id, student_id, surface, at FROM access_log a
     WHERE institution_id = $1
       AND ($3::bigint IS NULL OR (a.at, a.id) < (SELECT at, id FROM access_log WHERE id = $3::bigint))
     ORDER BY at DESC, id DESC LIMIT $2`,
    [institutionId, page.limit, page.before ?? null],
  );
  return rows;
}
