// Help requests as the student pages, the staff console and the admin API see them: creating one,
// reading one with its timeline, and the listing. Staff changes are in ./staff-changes.ts.
//
// Cost: creating is one transaction of three statements (the request, its first timeline entry,
// its events); reading is four indexed queries (the request, its timeline, its student, their other
// open requests); a page of the listing is two queries, the page and its students (plus one lookup
// when it filters by a person's id).
import type { Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Deps } from '../deps.ts';
import { recordEvent } from '../events/record.ts';
import type { ListFilter } from './listing.ts';
import { appendTimeline, insertRequest, isPerson, selectRequest, selectTimeline } from './queries.ts';
import { otherOpenRequests, requestStudents } from './requester.ts';
import type { Category, Priority } from './rules.ts';
import type { HelpRequest, HelpRequestDetail, HelpRequestListItem } from './schemas.ts';
import { selectRequestPage } from './sql/request-page.ts';
import { eventData, publicRequest } from './store.ts';

export const helpRequestNotFound = () =>
  new ApiError('help_request_not_found', { detail: 'no help request with this id in this institution' });

export const helpRequestResolved = () =>
  new ApiError('help_request_resolved', {
    detail: 'this request is resolved: it takes no more messages; ask for help again instead',
  });

export interface NewHelpRequest {
  /** The student, by id or (case-insensitive) email: exactly one of the two. */
  studentId?: string;
  studentEmail?: string;
  /** Normal when not given. */
  priority?: Priority;
  category?: Category;
  summary?: string;
  actor?: string;
}

/** Refuses a new request that names its student by neither or both of id and email. */
function checkStudentNamed(input: NewHelpRequest): void {
  if ((input.studentId === undefined) !== (input.studentEmail === undefined)) return;
  throw new ApiError(input.studentId === undefined ? 'missing_field' : 'invalid_request', {
    field: 'student_id',
    detail: 'name the student by exactly one of student_id and student_email',
  });
}

/** Creates a help request (status new) and records help_request.created, plus help_request.crisis for crisis. */
export async function createHelpRequest(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  input: NewHelpRequest,
): Promise<HelpRequest> {
  checkStudentNamed(input);
  const studentNotFound = () =>
    new ApiError('student_not_found', {
      detail: `no student with this ${input.studentId === undefined ? 'email' : 'id'} in this institution`,
    });
  if (input.studentId !== undefined && !uuidPattern.test(input.studentId)) throw studentNotFound();
  const now = clock.now();
  const actor = input.actor ?? null;
  return db.transaction(async (tx) => {
    const row = await insertRequest(tx, institutionId, {
      studentId: input.studentId ?? null,
      studentEmail: input.studentId === undefined ? (input.studentEmail ?? null) : null,
      priority: input.priority ?? 'normal',
      category: input.category ?? null,
      summary: input.summary ?? null,
      now,
    });
    if (!row) throw studentNotFound();
    await appendTimeline(tx, institutionId, [
      {
        help_request_id: row.id,
        kind: 'audit',
        action: 'created',
        actor,
        origin: 'platform',
        to_status: row.status,
        version: row.version,
        created_at: now.toISOString(),
      },
    ]);
    const data = eventData(row, 'platform', actor, now);
    const types = ['help_request.created', ...(row.priority === 'crisis' ? ['help_request.crisis'] : [])];
    for (const type of types) {
      await recordEvent(tx, { institutionId, type, helpRequestId: row.id, data, occurredAt: now });
    }
    return publicRequest(row);
  });
}

/**
 * One request with its whole timeline (oldest first) and its student (with where they are in
 * their six weeks at `now`, and their other open requests), or 404.
 */
export async function getHelpRequest(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
): Promise<HelpRequestDetail> {
  if (!uuidPattern.test(id)) throw helpRequestNotFound();
  const now = clock.now();
  const row = await selectRequest(db, institutionId, id);
  if (!row) throw helpRequestNotFound();
  const studentId = row.student_id;
  const [timeline, students, others] = await Promise.all([
    selectTimeline(db, institutionId, row.id),
    requestStudents(db, institutionId, studentId ? [studentId] : [], now),
    studentId ? otherOpenRequests(db, institutionId, studentId, row.id) : [],
  ]);
  const student = studentId ? students.get(studentId) : undefined;
  return {
    ...publicRequest(row),
    timeline,
    student: student ? { ...student, other_open_requests: others } : null,
  };
}

/** One page of the listing (filters and orders: ./listing.ts); `assigned=<id>` must name a person here. */
export async function listHelpRequests(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  filter: ListFilter,
): Promise<Paged<HelpRequestListItem>> {
  const now = clock.now();
  const assignment = filter.assignment;
  if (assignment?.kind === 'person' && assignment.checked === false) {
    if (!(await isPerson(db, institutionId, assignment.personId)))
      throw new ApiError('invalid_field', {
        field: 'assigned',
        detail: `assigned: no person ${assignment.personId} in this institution`,
      });
  }
  const page = await selectRequestPage(db, institutionId, {
    ...filter,
    crisisFirst: filter.order === 'crisis_first',
  });
  const studentIds = page.items.flatMap((row) => (row.student_id ? [row.student_id] : []));
  const students = await requestStudents(db, institutionId, studentIds, now);
  const items = page.items.map((row) => ({
    ...publicRequest(row),
    student: (row.student_id && students.get(row.student_id)) || null,
  }));
  return { items, next: page.next };
}
