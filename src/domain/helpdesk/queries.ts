// The SQL of the help desk, one function per statement, each taking the connection or the
// transaction it runs in. The rules that decide what to write live elsewhere (./rules.ts,
// ./assignment.ts, ./staff-changes.ts); here is only how rows are read and written.
//
// Indexes: a request is read by its primary key within the institution; the listing (a hot path
// in a file of its own, sql/request-page.ts) has an index for each filter and order (migrations
// 0013, 0017, 0019) and the trigram indexes for its search (0086); the timeline is read by
// (institution_id, help_request_id, seq) and the event log by (institution_id, seq).
import type { Queryable } from '../../db/db.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';
import type { AssigneeCandidate, RequestStudentRow } from './model.ts';
import type { Category, Priority, Status } from './rules.ts';
import type { AssigneeItem, InstitutionEvent, OpenRequestItem, TimelineItem } from './schemas.ts';
import type { HelpRequestRow, TimelineEntry } from './store.ts';

/**
 * The columns of a HelpRequestRow. `assigned_to` is read from the person at every read, so a
 * renamed person's requests show their new name; the subquery is one index lookup by primary
 * key. Usable wherever `help_requests` is the table's name in the statement (no alias).
 */
export const helpRequestColumns = `id, institution_id, student_id, status, priority, category, summary,
  coalesce((SELECT p.name FROM people p WHERE p.id = help_requests.assigned_person_id), help_requests.assigned_to)
    AS assigned_to,
  assigned_person_id AS assigned_to_id, external_ref, resolved_at, version, staff_status_changed_at,
  first_response_at, created_at, updated_at`;

/** One request of the institution, or undefined. */
export const selectRequest = (q: Queryable, institutionId: string, id: string) =>
  selectOwnedRow<HelpRequestRow>(q, 'help_requests', helpRequestColumns, institutionId, id);

/** Locks the institution's requests with these ids (in id order, so lockers never deadlock). */
export async function lockRequests(
  tx: Queryable,
  institutionId: string,
  ids: string[],
): Promise<Map<string, HelpRequestRow>> {
  const { rows } = await tx.query<HelpRequestRow>(
    `SELECT ${helpRequestColumns} FROM help_requests
     WHERE institution_id = $1 AND id = ANY (ARRAY(SELECT jsonb_array_elements_text($2::jsonb)::uuid))
     ORDER BY id FOR UPDATE`,
    [institutionId, JSON.stringify(ids)],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export interface NewRequestRow {
  /** The student, by id or else by (case-insensitive) email. */
  studentId: string | null;
  studentEmail: string | null;
  priority: Priority;
  category: Category | null;
  summary: string | null;
  now: Date;
}

/** Inserts a request (status new) for the institution's student; undefined when there is no such student. */
export async function insertRequest(
  tx: Queryable,
  institutionId: string,
  row: NewRequestRow,
): Promise<HelpRequestRow | undefined> {
  const { rows } = await tx.query<HelpRequestRow>(
    `INSERT INTO help_requests (institution_id, student_id, priority, category, summary, created_at, updated_at)
     SELECT $1, s.id, $4, $7, $5, $6, $6 FROM students s
     WHERE s.institution_id = $1 AND (s.id = $2::uuid OR lower(s.email) = lower($3::text))
     RETURNING ${helpRequestColumns}`,
    [institutionId, row.studentId, row.studentEmail, row.priority, row.summary, row.now, row.category],
  );
  return rows[0];
}

export interface StaffUpdate {
  status: Status;
  resolved_at: Date | null;
  version: number;
  staff_status_changed_at: Date | null;
  updated_at: Date;
  /** Whether the assignee is written: only an assignment does, so a legacy name stays otherwise. */
  reassign: boolean;
  assigned_person_id: string | null;
}

/** Writes a staff change to one request. */
export async function updateRequest(
  tx: Queryable,
  institutionId: string,
  id: string,
  update: StaffUpdate,
): Promise<void> {
  await tx.query(
    `UPDATE help_requests h SET status = u.status, resolved_at = u.resolved_at, version = u.version,
       staff_status_changed_at = u.staff_status_changed_at, updated_at = u.updated_at,
       assigned_person_id = CASE WHEN u.reassign THEN u.assigned_person_id ELSE h.assigned_person_id END,
       assigned_to = CASE WHEN u.reassign THEN NULL ELSE h.assigned_to END
     FROM json_to_record($3::json) AS u(status text, resolved_at timestamptz, version integer,
       staff_status_changed_at timestamptz, updated_at timestamptz, reassign boolean, assigned_person_id uuid)
     WHERE h.institution_id = $1 AND h.id = $2`,
    [institutionId, id, JSON.stringify(update)],
  );
}

export interface SyncedUpdate {
  id: string;
  status: Status;
  resolved_at: string | null;
  external_ref: string | null;
  version: number;
}

/** Writes the help-desk sync's changes to many requests, in one statement. */
export async function updateSyncedRequests(
  tx: Queryable,
  institutionId: string,
  updates: SyncedUpdate[],
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE help_requests h
     SET status = u.status, resolved_at = u.resolved_at, external_ref = u.external_ref,
         version = u.version, updated_at = $3
     FROM jsonb_to_recordset($2::jsonb) AS u(id uuid, status text, resolved_at timestamptz,
       external_ref text, version integer)
     WHERE h.institution_id = $1 AND h.id = u.id`,
    [institutionId, JSON.stringify(updates), now],
  );
}

/** A request's whole timeline, oldest first. */
export async function selectTimeline(
  db: Queryable,
  institutionId: string,
  id: string,
): Promise<TimelineItem[]> {
  const { rows } = await db.query<TimelineItem>(
    `SELECT id, seq, kind, action, actor, origin, note, from_status, to_status, external_ref, assigned_to,
       assigned_person_id AS assigned_to_id, version, created_at
     FROM help_request_timeline WHERE institution_id = $1 AND help_request_id = $2 ORDER BY seq`,
    [institutionId, id],
  );
  return rows;
}

/** Appends timeline entries in the given order, in one statement (an entry may bring its own id). */
export async function appendTimeline(tx: Queryable, institutionId: string, entries: TimelineEntry[]) {
  if (entries.length === 0) return;
  await tx.query(
    `INSERT INTO help_request_timeline (id, institution_id, help_request_id, kind, action, actor, origin, note,
       from_status, to_status, external_ref, assigned_to, assigned_person_id, version, created_at)
     SELECT coalesce(t.id, gen_random_uuid()), $1, t.help_request_id, t.kind, t.action, t.actor, t.origin, t.note,
       t.from_status, t.to_status, t.external_ref, t.assigned_to, t.assigned_person_id, t.version, t.created_at
     FROM jsonb_to_recordset($2::jsonb) AS t(ord integer, id uuid, help_request_id uuid, kind text, action text,
       actor text, origin text, note text, from_status text, to_status text, external_ref text,
       assigned_to text, assigned_person_id uuid, version integer, created_at timestamptz)
     ORDER BY t.ord`,
    [institutionId, JSON.stringify(entries.map((entry, ord) => ({ ...entry, ord })))],
  );
}

/** Whether this id is a person of the institution (removed people included: their requests stay theirs). */
export async function isPerson(db: Queryable, institutionId: string, personId: string): Promise<boolean> {
  return (await selectOwnedRow(db, 'people', '1', institutionId, personId)) !== undefined;
}

/**
 * The institution's people with this id, or bearing exactly this name, as the assignment rules
 * judge them. FOR SHARE holds their rows until the assignment's transaction commits, so a removal
 * or a role change made meanwhile waits and cannot slip between the check and the write.
 */
export async function selectAssigneeCandidates(
  tx: Queryable,
  institutionId: string,
  ref: { id: string } | { name: string },
): Promise<AssigneeCandidate[]> {
  const { rows } = await tx.query<AssigneeCandidate>(
    `SELECT id, name, roles, removed_at IS NOT NULL AS removed FROM people
     WHERE institution_id = $1 AND ${'id' in ref ? 'id = $2::uuid' : 'name = $2'} FOR SHARE`,
    [institutionId, 'id' in ref ? ref.id : ref.name],
  );
  return rows;
}

/** The institution's active staff and admins, by name (then id, so namesakes keep one order). */
export async function selectAssignees(db: Queryable, institutionId: string): Promise<AssigneeItem[]> {
  const { rows } = await db.query<AssigneeItem>(
    `SELECT id, name, email FROM people
     WHERE institution_id = $1 AND removed_at IS NULL AND roles && ARRAY['staff', 'admin']::text[]
     ORDER BY name, id`,
    [institutionId],
  );
  return rows;
}

/** The institution's event log after a sequence number, oldest first. */
export async function selectEvents(
  db: Queryable,
  institutionId: string,
  options: { afterSeq: number; limit: number },
): Promise<InstitutionEvent[]> {
  const { rows } = await db.query<InstitutionEvent>(
    `SELECT id, seq, type, help_request_id, payload, occurred_at FROM events
     WHERE institution_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [institutionId, options.afterSeq, options.limit],
  );
  return rows;
}

/** How many entries of this kind the request's timeline has since `since` (the conversation's rate limits). */
export async function countRecentEntries(
  db: Queryable,
  requestId: string,
  kind: 'reply' | 'student_message',
  since: Date,
): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM help_request_timeline
     WHERE help_request_id = $1 AND kind = $2 AND created_at > $3`,
    [requestId, kind, since],
  );
  return rows[0].count;
}

/** Whether the institution lets its help desk post public replies through help-sync. */
export async function selectHelpSyncReplies(db: Queryable, institutionId: string): Promise<boolean> {
  const { rows } = await db.query<{ help_sync_replies: boolean }>(
    'SELECT help_sync_replies FROM institutions WHERE id = $1',
    [institutionId],
  );
  return rows[0]?.help_sync_replies ?? false;
}

/** Turns public replies through help-sync on or off for the institution. */
export async function updateHelpSyncReplies(
  db: Queryable,
  institutionId: string,
  on: boolean,
): Promise<void> {
  await db.query('UPDATE institutions SET help_sync_replies = $2 WHERE id = $1', [institutionId, on]);
}

/** The students of these ids (of one institution) with cohort, program, campus and time zone. */
export async function selectRequestStudents(
  db: Queryable,
  institutionId: string,
  studentIds: readonly string[],
): Promise<RequestStudentRow[]> {
  const { rows } = await db.query<RequestStudentRow>(
    `SELECT s.id, nullif(concat_ws(' ', s.first_name, s.last_name), '') AS name, s.email, s.student_id_ext,
            s.departed_at IS NOT NULL AS departed,
            c.id AS cohort_id, c.name AS cohort_name, c.clock,
            to_char(c.start_date, 'YYYY-MM-DD') AS cohort_start, to_char(s.start_date, 'YYYY-MM-DD') AS own_start,
            p.id AS program_id, p.code AS program_code, p.name AS program_name,
            ca.id AS campus_id, ca.name AS campus_name, i.time_zone
     FROM students s
     JOIN cohorts c ON c.id = s.cohort_id
     JOIN institutions i ON i.id = s.institution_id
     LEFT JOIN programs p ON p.id = s.program_id
     LEFT JOIN campuses ca ON ca.id = s.campus_id
     WHERE s.institution_id = $1 AND s.id = ANY (ARRAY(SELECT jsonb_array_elements_text($2::jsonb)::uuid))`,
    [institutionId, JSON.stringify(studentIds)],
  );
  return rows;
}

/** The student's requests other than `exceptId` that are not resolved, newest first. */
export async function selectOtherOpenRequests(
  db: Queryable,
  institutionId: string,
  studentId: string,
  exceptId: string,
  limit: number,
): Promise<OpenRequestItem[]> {
  const { rows } = await db.query<OpenRequestItem>(
    `SELECT id, summary, priority, status, created_at FROM help_requests
     WHERE student_id = $2 AND institution_id = $1 AND id <> $3 AND status <> 'resolved'
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [institutionId, studentId, exceptId, limit],
  );
  return rows;
}
