// The student behind a help request, as staff need to see them to help: who they are (name,
// email, the SIS's id), where they study (cohort, program, campus), where they are in their six
// weeks today, and -- on a request's own page -- their other open requests. Staff should never
// have to search the students listing to learn who is in danger.
//
// Cost: one set-based query for every student of a listing page (never one per row), plus one
// indexed query for a request's other open requests.
import type { Queryable } from '../../db/db.ts';
import { dateIn } from '../../lib/time-zones.ts';
import { type Clock as SixWeeksClock, sixWeeks, startDateFor } from '../students/six-weeks.ts';
import type { OpenRequestItem, RequestStudent } from './schemas.ts';

/** Most other open requests a request's page lists. */
export const MAX_OTHER_OPEN = 20;

interface StudentRow {
  id: string;
  name: string | null;
  email: string;
  student_id_ext: string;
  departed: boolean;
  cohort_id: string;
  cohort_name: string;
  clock: SixWeeksClock;
  cohort_start: string | null;
  own_start: string | null;
  program_id: string | null;
  program_code: string | null;
  program_name: string | null;
  campus_id: string | null;
  campus_name: string | null;
  time_zone: string;
}

/** What staff see of one student row, with the six weeks as of `now` in the institution's zone. */
export function requestStudentOf(row: StudentRow, now: Date): RequestStudent {
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
export async function selectRequestStudents(
  db: Queryable,
  institutionId: string,
  studentIds: readonly string[],
  now: Date,
): Promise<Map<string, RequestStudent>> {
  const ids = [...new Set(studentIds)];
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<StudentRow>(
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
    [institutionId, JSON.stringify(ids)],
  );
  return new Map(rows.map((row) => [row.id, requestStudentOf(row, now)]));
}

/** The student's requests other than `exceptId` that are not resolved, newest first. */
export async function selectOtherOpenRequests(
  db: Queryable,
  institutionId: string,
  studentId: string,
  exceptId: string,
): Promise<OpenRequestItem[]> {
  const { rows } = await db.query<OpenRequestItem>(
    `SELECT id, summary, priority, status, created_at FROM help_requests
     WHERE student_id = $2 AND institution_id = $1 AND id <> $3 AND status <> 'resolved'
     ORDER BY created_at DESC, id DESC LIMIT ${MAX_OTHER_OPEN}`,
    [institutionId, studentId, exceptId],
  );
  return rows;
}
