// A student's own help requests: what the student pages list and show. The one rule here is
// that a student acts only on their own requests: every read is keyed by the student's id from
// their session (never an id taken from a URL alone), so another student's request, or one of
// another institution, is exactly as absent as an id that does not exist (404).
//
// What a student sees of a request: its description, category, whether it is a crisis request,
// its status and when the status last changed, and its public history (the status changes).
// Staff notes, assignment, external references and staff names are never read here.
//
// Cost: the list is one query on (student_id, created_at); a request's page is two (the request,
// its history).
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
}

/** One entry of the public history: the request was created, or its status changed. */
export interface HistoryEntry {
  from_status: Status | null;
  to_status: Status;
  at: Date;
}

export const helpRequestNotFound = () =>
  new ApiError('help_request_not_found', { detail: 'you have no help request with this id' });

const columns = `r.id, r.status, r.priority, r.category, r.summary, r.created_at, r.resolved_at,
  coalesce((SELECT max(t.created_at) FROM help_request_timeline t
            WHERE t.help_request_id = r.id AND ${publicEntry('t')}), r.created_at) AS status_changed_at`;

/**
 * Timeline entries a student may see: audit entries that created the request or changed its
 * status. Notes (kind 'note'), assignments and sync attempts that changed nothing are left out.
 */
function publicEntry(t: string): string {
  return `${t}.kind = 'audit' AND ${t}.to_status IS NOT NULL
    AND (${t}.action = 'created' OR ${t}.from_status IS DISTINCT FROM ${t}.to_status)`;
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

/** The public history of a request already checked to be the student's own, oldest first. */
export async function publicHistory(q: Queryable, request: { id: string }): Promise<HistoryEntry[]> {
  const { rows } = await q.query<{ from_status: Status | null; to_status: Status; created_at: Date }>(
    `SELECT t.from_status, t.to_status, t.created_at FROM help_request_timeline t
     WHERE t.help_request_id = $1 AND ${publicEntry('t')} ORDER BY t.seq`,
    [request.id],
  );
  return rows.map((row) => ({
    from_status: row.from_status,
    to_status: row.to_status,
    at: row.created_at,
  }));
}
