// A student's own help requests: what the student pages list and show. The one rule here is
// that a student acts only on their own requests: every read is keyed by the student's id from
// their session (never an id taken from a URL alone), so another student's request, or one of
// another institution, is exactly as absent as an id that does not exist (404).
//
// What a student sees of a request: its description, category, whether it is a crisis request,
// its status and when the status last changed, and its conversation: the status changes, the
// replies to them (from staff or the help desk) and their own answers. Staff notes, assignment,
// external references and staff names are never read here: a reply is signed by the support team,
// not by a person (staff in student support keep their names to themselves).
//
// Unread: the page of a request records the last entry the student was shown
// (help_request_student_reads); a reply or status change after it marks the request unread in
// their list and on their home page, so a student without email, or with email off, learns of it
// at the next visit.
//
// Cost: the list is one query on (student_id, created_at), with one indexed probe of the timeline
// per listed request for the unread marker; a request's page is three (the request, its
// conversation, the read marker).
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Category, Priority, Status } from '../helpdesk/rules.ts';

/** The signed-in student, as the session names them. */
export interface StudentRef {
  institutionId: string;
  studentId: string;
}

export interface OwnRequest {
  id: string;
  status: Status;
  priority: Priority;
  category: Category | null;
  summary: string | null;
  created_at: Date;
  /** When the status last changed (the creation for a request never changed since). */
  status_changed_at: Date;
  resolved_at: Date | null;
  /** A reply or status change came after what the student last saw of the request. */
  unread: boolean;
}

/**
 * One entry of the conversation: the request was created, its status changed, the support team
 * replied, or the student wrote.
 */
export interface HistoryEntry {
  seq: number;
  kind: 'status' | 'reply' | 'student_message';
  from_status: Status | null;
  to_status: Status | null;
  /** The words of a reply or of the student's answer. */
  text: string | null;
  at: Date;
}

export const helpRequestNotFound = () =>
  new ApiError('help_request_not_found', { detail: 'you have no help request with this id' });

const columns = `r.id, r.status, r.priority, r.category, r.summary, r.created_at, r.resolved_at,
  coalesce((SELECT max(t.created_at) FROM help_request_timeline t
            WHERE t.help_request_id = r.id AND ${statusEntry('t')}), r.created_at) AS status_changed_at,
  EXISTS (SELECT 1 FROM help_request_timeline t
          WHERE t.help_request_id = r.id
            AND t.seq > coalesce((SELECT s.seen_seq FROM help_request_student_reads s WHERE s.help_request_id = r.id), 0)
            AND (t.kind = 'reply' OR (${statusEntry('t')} AND t.action <> 'created'))) AS unread`;

/**
 * Audit entries a student may see: those that created the request or changed its status.
 * Assignments and sync attempts that changed nothing are left out.
 */
function statusEntry(t: string): string {
  return `${t}.kind = 'audit' AND ${t}.to_status IS NOT NULL
    AND (${t}.action = 'created' OR ${t}.from_status IS DISTINCT FROM ${t}.to_status)`;
}

/** Timeline entries a student may see: status changes, replies, their own answers; never notes. */
function publicEntry(t: string): string {
  return `((${statusEntry(t)}) OR ${t}.kind IN ('reply', 'student_message'))`;
}

/** The student's own request with this id, or 404 help_request_not_found. */
export async function ownRequest(q: Queryable, student: StudentRef, id: string): Promise<OwnRequest> {
  if (!uuidPattern.test(id)) throw helpRequestNotFound();
  const { rows } = await q.query<OwnRequest>(
    `SELECT ${columns} FROM help_requests r
     WHERE r.institution_id = $1 AND r.student_id = $2 AND r.id = $3`,
    [student.institutionId, student.studentId, id.toLowerCase()],
  );
  if (!rows[0]) throw helpRequestNotFound();
  return rows[0];
}

/** The student's own requests, newest first. */
export async function listOwnRequests(
  q: Queryable,
  student: StudentRef,
  page: { limit: number; offset: number },
): Promise<OwnRequest[]> {
  const { rows } = await q.query<OwnRequest>(
    `SELECT ${columns} FROM help_requests r
     WHERE r.student_id = $2 AND r.institution_id = $1
     ORDER BY r.created_at DESC, r.id LIMIT $3 OFFSET $4`,
    [student.institutionId, student.studentId, page.limit, page.offset],
  );
  return rows;
}

/** The conversation of a request already checked to be the student's own, oldest first. */
export async function publicHistory(q: Queryable, request: { id: string }): Promise<HistoryEntry[]> {
  const { rows } = await q.query<{
    seq: string;
    kind: string;
    from_status: Status | null;
    to_status: Status | null;
    note: string | null;
    created_at: Date;
  }>(
    `SELECT t.seq, t.kind, t.from_status, t.to_status, t.note, t.created_at FROM help_request_timeline t
     WHERE t.help_request_id = $1 AND ${publicEntry('t')} ORDER BY t.seq`,
    [request.id],
  );
  return rows.map((row) => ({
    seq: Number(row.seq),
    kind: row.kind === 'reply' || row.kind === 'student_message' ? row.kind : 'status',
    from_status: row.from_status,
    to_status: row.to_status,
    text: row.kind === 'reply' || row.kind === 'student_message' ? row.note : null,
    at: row.created_at,
  }));
}

/** Records that the student was shown the request up to this entry (never moves back). */
export async function markSeen(
  q: Queryable,
  student: StudentRef,
  request: { id: string },
  seq: number,
  now: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO help_request_student_reads (help_request_id, institution_id, seen_seq, seen_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (help_request_id) DO UPDATE
       SET seen_seq = GREATEST(help_request_student_reads.seen_seq, EXCLUDED.seen_seq), seen_at = EXCLUDED.seen_at`,
    [request.id, student.institutionId, seq, now],
  );
}
