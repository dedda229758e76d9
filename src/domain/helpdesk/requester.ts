// The student behind a help request, as staff need to see them to help: who they are (name,
// email, the SIS's id), where they study (cohort, program, campus), where they are in their six
// weeks today, and -- on a request's own page -- their other open requests. Staff should never
// have to search the students listing to learn who is in danger.
//
// Cost: one set-based query for every student of a listing page (never one per row), plus one
// indexed query for a request's other open requests (both in ./queries.ts).
import type { Queryable } from '../../db/db.ts';
import { dateIn } from '../../lib/time-zones.ts';
import { sixWeeks, startDateFor } from '../students/six-weeks.ts';
import type { RequestStudentRow } from './model.ts';
import { selectOtherOpenRequests, selectRequestStudents } from './queries.ts';
import type { OpenRequestItem, RequestStudent } from './schemas.ts';

/** Most other open requests a request's page lists. */
export const MAX_OTHER_OPEN = 20;

/** What staff see of one student row, with the six weeks as of `now` in the institution's zone. */
export function requestStudentOf(row: RequestStudentRow, now: Date): RequestStudent {
  const start = startDateFor(row.clock, row.cohort_start, row.own_start);
  const where = sixWeeks(row.clock, start, dateIn(now, row.time_zone));
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    student_id_ext: row.student_id_ext,
    departed: row.departed,
    cohort: { id: row.cohort_id, name: row.cohort_name },
    program:
      row.program_id && row.program_code
        ? { id: row.program_id, code: row.program_code, name: row.program_name }
        : null,
    campus: row.campus_id && row.campus_name ? { id: row.campus_id, name: row.campus_name } : null,
    six_weeks: {
      state: where.state,
      week: where.state === 'during' ? where.week : null,
      start: where.state === 'no_start' ? null : where.start,
    },
  };
}

/** The students of these ids (of one institution), by id; ids of deleted students are absent. */
export async function requestStudents(
  db: Queryable,
  institutionId: string,
  studentIds: readonly string[],
  now: Date,
): Promise<Map<string, RequestStudent>> {
  const ids = [...new Set(studentIds)];
  if (ids.length === 0) return new Map();
  const rows = await selectRequestStudents(db, institutionId, ids);
  return new Map(rows.map((row) => [row.id, requestStudentOf(row, now)]));
}

/** The student's requests other than `exceptId` that are not resolved, newest first (at most 20). */
export function otherOpenRequests(
  db: Queryable,
  institutionId: string,
  studentId: string,
  exceptId: string,
): Promise<OpenRequestItem[]> {
  return selectOtherOpenRequests(db, institutionId, studentId, exceptId, MAX_OTHER_OPEN);
}
