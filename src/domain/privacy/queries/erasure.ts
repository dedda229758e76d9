// The erasure's SQL, one statement per step and table, each set-based over the students (or
// requests) of one batch: a batch of 1 or of 500 costs the same number of statements. Every
// statement is scoped by institution. Run inside a transaction that has called `allowErasure`.
import type { Queryable } from '../../../db/db.ts';

/** The name an erased student's timeline entries and events are attributed to. */
export const ERASED_ACTOR = 'Erased student';

/** Fields of a help-request event's `data` an erased request keeps (none of them personal). */
export const KEPT_EVENT_FIELDS = [
  'help_request_id',
  'status',
  'priority',
  'category',
  'external_ref',
  'assigned_to',
  'assigned_to_id',
  'origin',
  'actor',
  'version',
  'updated_at',
];

export interface StudentIdentity {
  id: string;
  email: string;
  student_id_ext: string;
  first_name: string | null;
  last_name: string | null;
}

/** The append-only triggers' one exception, for this transaction only (migration 0090). */
export async function allowErasure(tx: Queryable): Promise<void> {
  await tx.query(`SELECT set_config('ssp.erasure', 'on', true)`);
}

/** The help requests of these students, each with its student. */
export async function ownedRequests(tx: Queryable, institutionId: string, ids: string[]) {
  const { rows } = await tx.query<{ id: string; student_id: string }>(
    `SELECT id, student_id FROM help_requests WHERE institution_id = $1 AND student_id = ANY($2::uuid[])`,
    [institutionId, ids],
  );
  return rows;
}

/** The students of a batch, locked until the erasure commits (a push waits, then finds them gone). */
export async function lockStudents(tx: Queryable, institutionId: string, ids: string[]) {
  const { rows } = await tx.query<StudentIdentity>(
    `SELECT id, email, student_id_ext, first_name, last_name FROM students
     WHERE institution_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`,
    [institutionId, ids],
  );
  return rows;
}

export async function requestsOfStudents(tx: Queryable, institutionId: string, studentIds: string[]) {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM help_requests WHERE institution_id = $1 AND student_id = ANY($2::uuid[])`,
    [institutionId, studentIds],
  );
  return rows.map((r) => r.id);
}

/**
 * Erases the words of help requests everywhere they were copied: the summary, every timeline
 * note (of every kind) and the student's own name as actor, event payloads (cut to the kept
 * fields), the receivers' errors and response bodies of their deliveries, and their notification
 * rows. The requests stay, with status, priority, category and times. Returns counts.
 */
export async function redactRequests(tx: Queryable, institutionId: string, requestIds: string[], at: Date) {
  if (requestIds.length === 0) return { help_requests: 0, timeline_entries: 0, events: 0, notifications: 0 };
  const params = [institutionId, requestIds];
  // The student's name or email as actor, while the student row still exists.
  const studentActor = `s.id IS NOT NULL AND %s IN (s.email, concat_ws(' ', s.first_name, s.last_name), s.first_name)`;
  const timeline = await tx.query(
    `UPDATE help_request_timeline t SET note = NULL,
       actor = CASE WHEN ${studentActor.replace('%s', 't.actor')} THEN '${ERASED_ACTOR}' ELSE t.actor END
     FROM help_requests h LEFT JOIN students s ON s.id = h.student_id
     WHERE h.institution_id = $1 AND h.id = ANY($2::uuid[]) AND t.help_request_id = h.id
       AND (t.note IS NOT NULL OR ${studentActor.replace('%s', 't.actor')})`,
    params,
  );
  const events = await tx.query(
    `UPDATE events e SET payload = jsonb_set(e.payload, '{data}',
       coalesce((SELECT jsonb_object_agg(d.k, d.v) FROM jsonb_each(e.payload -> 'data') AS d(k, v)
                 WHERE d.k = ANY($3::text[])), '{}'::jsonb)
       || CASE WHEN ${studentActor.replace('%s', "e.payload -> 'data' ->> 'actor'")}
          THEN jsonb_build_object('actor', '${ERASED_ACTOR}') ELSE '{}'::jsonb END)
     FROM help_requests h LEFT JOIN students s ON s.id = h.student_id
     WHERE e.institution_id = $1 AND e.help_request_id = ANY($2::uuid[]) AND h.id = e.help_request_id`,
    [...params, KEPT_EVENT_FIELDS],
  );
  await tx.query(
    `WITH d AS (
       UPDATE webhook_deliveries SET last_error = NULL
       WHERE event_id IN (SELECT id FROM events WHERE institution_id = $1 AND help_request_id = ANY($2::uuid[]))
       RETURNING id
     )
     UPDATE webhook_attempts SET error = NULL, response_headers = NULL, response_body = NULL
     WHERE delivery_id IN (SELECT id FROM d)
       AND (error IS NOT NULL OR response_headers IS NOT NULL OR response_body IS NOT NULL)`,
    params,
  );
  const notifications = await tx.query(
    `DELETE FROM notifications WHERE institution_id = $1 AND help_request_id = ANY($2::uuid[])`,
    params,
  );
  const requests = await tx.query(
    `UPDATE help_requests SET summary = NULL, erased_at = coalesce(erased_at, $3)
     WHERE institution_id = $1 AND id = ANY($2::uuid[])`,
    [...params, at.toISOString()],
  );
  return {
    help_requests: requests.rowCount ?? 0,
    timeline_entries: timeline.rowCount ?? 0,
    events: events.rowCount ?? 0,
    notifications: notifications.rowCount ?? 0,
  };
}

/** Lower-case strings whose presence marks a stored text as the student's (email and SIS id). */
export function needlesOf(students: StudentIdentity[]): string[] {
  return students.flatMap((s) => [s.email.toLowerCase(), s.student_id_ext.toLowerCase()]);
}

/** Push history: row errors, counts and warnings that quote the students become "[erased]". */
export async function scrubRuns(tx: Queryable, institutionId: string, needles: string[]) {
  const { rowCount } = await tx.query(
    `UPDATE sis_runs r SET errors = privacy_scrub(r.errors, $2::text[]),
       counts = privacy_scrub(r.counts, $2::text[]), details = privacy_scrub(r.details, $2::text[])
     WHERE r.institution_id = $1
       AND lower(r.errors::text || r.counts::text || r.details::text) LIKE ANY (
         SELECT '%' || replace(replace(replace(n, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' FROM unnest($2::text[]) n)`,
    [institutionId, needles],
  );
  return rowCount ?? 0;
}

/** The OneRoster memory forgets the students (their sourcedIds and SIS ids). */
export async function forgetInOneRoster(tx: Queryable, institutionId: string, exts: string[]) {
  const { rowCount } = await tx.query(
    `UPDATE oneroster_sources o SET known = jsonb_set(o.known, '{students}',
       coalesce((SELECT jsonb_object_agg(k, v) FROM jsonb_each(o.known -> 'students') AS s(k, v)
                 WHERE NOT (v ->> 0 = ANY($2::text[]))), '{}'::jsonb))
     WHERE o.institution_id = $1 AND jsonb_typeof(o.known -> 'students') = 'object'
       AND EXISTS (SELECT 1 FROM jsonb_each(o.known -> 'students') AS s(k, v) WHERE v ->> 0 = ANY($2::text[]))`,
    [institutionId, exts],
  );
  return rowCount ?? 0;
}

/**
 * The OneRoster memory (docs/oneroster.md, "Deltas") forgets the students: their user rows and
 * the enrollments that placed them, in one statement by the index on student_id_ext. A later
 * delta naming them again finds nothing remembered and treats them as new, as a new student is.
 */
export async function forgetInOneRosterMemory(tx: Queryable, institutionId: string, exts: string[]) {
  const { rowCount } = await tx.query(
    'DELETE FROM oneroster_memory WHERE institution_id = $1 AND student_id_ext = ANY($2::text[])',
    [institutionId, exts],
  );
  return rowCount ?? 0;
}

/** The same in what pushes staged and have not made current yet (a commit cannot bring them back). */
export async function forgetInOneRosterStaged(tx: Queryable, institutionId: string, exts: string[]) {
  const { rowCount } = await tx.query(
    'DELETE FROM oneroster_memory_staged WHERE institution_id = $1 AND student_id_ext = ANY($2::text[])',
    [institutionId, exts],
  );
  return rowCount ?? 0;
}

/**
 * Admin audit lines whose path names a student keep the line with the id replaced. Only paths
 * under /students/ can name one (erasures are posted to a path that names nobody).
 */
export async function redactAuditTargets(tx: Queryable, institutionId: string, studentIds: string[]) {
  const { rowCount } = await tx.query(
    `UPDATE admin_audit a SET target = replace(a.target, s.id::text, 'erased')
     FROM unnest($2::uuid[]) AS s(id)
     WHERE a.institution_id = $1 AND a.target LIKE '%/students/%' AND strpos(a.target, s.id::text) > 0`,
    [institutionId, studentIds],
  );
  return rowCount ?? 0;
}

/** Who looked stays; which student they looked at goes. */
export async function unlinkAccessLog(tx: Queryable, institutionId: string, studentIds: string[]) {
  const { rowCount } = await tx.query(
    `UPDATE access_log SET student_id = NULL WHERE institution_id = $1 AND student_id = ANY($2::uuid[])`,
    [institutionId, studentIds],
  );
  return rowCount ?? 0;
}

/** The students' own stored answers to retried POSTs. */
export async function dropIdempotencyKeys(tx: Queryable, studentIds: string[]) {
  const { rowCount } = await tx.query(`DELETE FROM idempotency_keys WHERE caller = ANY($1::text[])`, [
    studentIds.map((id) => `student:${id}`),
  ]);
  return rowCount ?? 0;
}

/** The students themselves; enrolments, sessions and sign-in links go with them (ON DELETE CASCADE). */
export async function deleteStudents(tx: Queryable, institutionId: string, studentIds: string[]) {
  const { rowCount } = await tx.query(
    `DELETE FROM students WHERE institution_id = $1 AND id = ANY($2::uuid[])`,
    [institutionId, studentIds],
  );
  return rowCount ?? 0;
}

export async function insertErasures(
  tx: Queryable,
  institutionId: string,
  rows: { student_key: string; removed: Record<string, number> }[],
  meta: { reason: 'request' | 'retention'; erasedBy: string; at: Date },
) {
  const { rows: inserted } = await tx.query<{ id: string; student_key: string }>(
    `INSERT INTO student_erasures (institution_id, student_key, reason, erased_by, removed, erased_at)
     SELECT $1, r.student_key, $3, $4, r.removed, $5
     FROM jsonb_to_recordset($2::jsonb) AS r(student_key text, removed jsonb)
     ON CONFLICT (institution_id, student_key) DO NOTHING
     RETURNING id, student_key`,
    [institutionId, JSON.stringify(rows), meta.reason, meta.erasedBy, meta.at.toISOString()],
  );
  return inserted;
}

export async function findErasure(db: Queryable, institutionId: string, studentKey: string) {
  const { rows } = await db.query<{
    id: string;
    erased_at: Date;
    erased_by: string;
    removed: Record<string, number>;
  }>(
    `SELECT id, erased_at, erased_by, removed FROM student_erasures WHERE institution_id = $1 AND student_key = $2`,
    [institutionId, studentKey],
  );
  return rows[0];
}
