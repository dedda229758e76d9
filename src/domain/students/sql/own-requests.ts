// The statements of a student's own requests (../own-requests.ts) with the visibility rules they
// share: which timeline entries a student may see (status changes and the creation, replies, their
// own answers; never notes, assignments or sync attempts that changed nothing) and what makes a
// request unread. Every statement is keyed by the student's id from their session.
//
// Cost: the list is one query on (student_id, created_at), with one indexed probe of the timeline
// per listed request for the unread marker; a request is one query by key, its conversation one
// by (help_request_id, seq), the read marker one upsert by key.
import type { Queryable } from '../../../db/db.ts';
import type { HistoryRow, OwnRequest, StudentRef } from '../model.ts';

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

const columns = `r.id, r.status, r.priority, r.category, r.summary, r.created_at, r.resolved_at,
  coalesce((SELECT max(t.created_at) FROM help_request_timeline t
            WHERE t.help_request_id = r.id AND ${statusEntry('t')}), r.created_at) AS status_changed_at,
  EXISTS (SELECT 1 FROM help_request_timeline t
          WHERE t.help_request_id = r.id
            AND t.seq > coalesce((SELECT s.seen_seq FROM help_request_student_reads s WHERE s.help_request_id = r.id), 0)
            AND (t.kind = 'reply' OR (${statusEntry('t')} AND t.action <> 'created'))) AS unread`;

/** The student's request with this (lower-case) id, if it is theirs. */
export async function selectOwnRequest(
  q: Queryable,
  student: StudentRef,
  id: string,
): Promise<OwnRequest | undefined> {
  const { rows } = await q.query<OwnRequest>(
    `SELECT ${columns} FROM help_requests r
     WHERE r.institution_id = $1 AND r.student_id = $2 AND r.id = $3`,
    [student.institutionId, student.studentId, id],
  );
  return rows[0];
}

/** A page of the student's requests, newest first. */
export async function selectOwnRequests(
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

/** The timeline entries of a request the student may see, oldest first. */
export async function selectPublicHistory(q: Queryable, helpRequestId: string): Promise<HistoryRow[]> {
  const { rows } = await q.query<HistoryRow>(
    `SELECT t.seq, t.kind, t.from_status, t.to_status, t.note, t.created_at FROM help_request_timeline t
     WHERE t.help_request_id = $1 AND ${publicEntry('t')} ORDER BY t.seq`,
    [helpRequestId],
  );
  return rows;
}

/** Records the last entry the student was shown of a request (never moves back). */
export async function upsertStudentRead(
  q: Queryable,
  read: { helpRequestId: string; institutionId: string; seq: number; at: Date },
): Promise<void> {
  await q.query(
    `INSERT INTO help_request_student_reads (help_request_id, institution_id, seen_seq, seen_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (help_request_id) DO UPDATE
       SET seen_seq = GREATEST(help_request_student_reads.seen_seq, EXCLUDED.seen_seq), seen_at = EXCLUDED.seen_at`,
    [read.helpRequestId, read.institutionId, read.seq, read.at],
  );
}
