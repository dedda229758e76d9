// A student's own help requests: what the student pages list and show, and the student's answer
// on one. The one rule here is that a student acts only on their own requests: every read is keyed
// by the student's id from their session (never an id taken from a URL alone), so another
// student's request, or one of another institution, is exactly as absent as an id that does not
// exist (404).
//
// What a student sees of a request: its description, category, whether it is a crisis request,
// its status and when the status last changed, and its conversation: the status changes, the
// replies to them (from staff or the help desk) and their own answers. Staff notes, assignment,
// external references and staff names are never read here: a reply is signed by the support team,
// not by a person (staff in student support keep their names to themselves). The statements and
// their visibility rules: ./sql/own-requests.ts.
//
// Unread: the page of a request records the last entry the student was shown
// (help_request_student_reads); a reply or status change after it marks the request unread in
// their list and on their home page, so a student without email, or with email off, learns of it
// at the next visit.
//
// Cost: the list is one query; a request's page is three (the request, its conversation, the read
// marker).
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { isStorableText } from '../../lib/text.ts';
import type { Deps } from '../deps.ts';
import { addStudentMessage } from '../helpdesk/conversation.ts';
import { MAX_STUDENT_MESSAGE } from '../helpdesk/rules.ts';
import type { HistoryEntry, OwnRequest, StudentRef } from './model.ts';
import {
  selectOwnRequest,
  selectOwnRequests,
  selectPublicHistory,
  upsertStudentRead,
} from './sql/own-requests.ts';

export const helpRequestNotFound = () =>
  new ApiError('help_request_not_found', { detail: 'you have no help request with this id' });

/** The student's own request with this id, or 404 help_request_not_found. */
export async function ownRequest(q: Queryable, student: StudentRef, id: string): Promise<OwnRequest> {
  if (!uuidPattern.test(id)) throw helpRequestNotFound();
  const found = await selectOwnRequest(q, student, id.toLowerCase());
  if (!found) throw helpRequestNotFound();
  return found;
}

/** The student's own requests, newest first (the first 100 unless a page is given). */
export function listOwnRequests(
  q: Queryable,
  student: StudentRef,
  page = { limit: 100, offset: 0 },
): Promise<OwnRequest[]> {
  return selectOwnRequests(q, student, page);
}

/** The conversation of a request already checked to be the student's own, oldest first. */
export async function publicHistory(q: Queryable, request: { id: string }): Promise<HistoryEntry[]> {
  const rows = await selectPublicHistory(q, request.id);
  return rows.map((row) => ({
    seq: Number(row.seq),
    kind: row.kind === 'reply' || row.kind === 'student_message' ? row.kind : 'status',
    from_status: row.from_status,
    to_status: row.to_status,
    text: row.kind === 'reply' || row.kind === 'student_message' ? row.note : null,
    at: row.created_at,
  }));
}

/** The student's request and its conversation; showing it marks it read up to its last entry. */
export async function readOwnRequest(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  student: StudentRef,
  id: string,
): Promise<{ request: OwnRequest; history: HistoryEntry[] }> {
  const request = await ownRequest(db, student, id);
  const history = await publicHistory(db, request);
  const last = history.at(-1);
  if (last)
    await upsertStudentRead(db, {
      helpRequestId: request.id,
      institutionId: student.institutionId,
      seq: last.seq,
      at: clock.now(),
    });
  return { request, history };
}

/** What is wrong with a student's answer, for them (undefined when it can be sent). */
export function answerProblem(text: string): string | undefined {
  if (text.trim() === '') return 'Write your message before sending it.';
  if (text.length > MAX_STUDENT_MESSAGE || !isStorableText(text))
    return `Keep your message under ${MAX_STUDENT_MESSAGE} characters (it is ${text.length}).`;
  return undefined;
}

/**
 * The student answers on their own request (../helpdesk/conversation.ts): 404 for a request that
 * is not theirs, 409 help_request_resolved once resolved, 429 after 20 in an hour.
 */
export function answerOwnRequest(
  deps: Pick<Deps, 'db' | 'clock'>,
  student: StudentRef & { actor: string },
  id: string,
  text: string,
) {
  return addStudentMessage(deps, student.institutionId, id, {
    text,
    studentId: student.studentId,
    actor: student.actor.slice(0, 200),
  });
}
