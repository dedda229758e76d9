// Enrolments' statements: one resolves every row's references (the student by email, then by
// student_id_ext, like the roster; the unit and the term by code) and finds the stored enrolment.
import { matchStatement, type SectionWrites, tableWrites } from './write.ts';

export interface ResolvedEnrolment {
  i: number;
  by_email: string | null;
  by_ext: string | null;
  unit_id: string | null;
  term_id: string | null;
  id: string | null;
  status: string | null;
}

export const resolveEnrolments = matchStatement<
  { i: number; email: string | null; ext: string | null; unit: string; term: string },
  ResolvedEnrolment
>(
  `SELECT r.i, se.id AS by_email, sx.id AS by_ext, u.id AS unit_id, t.id AS term_id, e.id, e.status
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, email text, ext text, unit text, term text)
     LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
     LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.ext
     LEFT JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.unit)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.term)
     LEFT JOIN enrolments e ON e.student_id = coalesce(se.id, sx.id) AND e.unit_id = u.id AND e.term_id = t.id`,
);

// A student's enrolment in a unit and term is its key: an update changes only its status.
export const writeEnrolments: SectionWrites = tableWrites(
  'enrolments',
  { student_id: 'uuid', unit_id: 'uuid', term_id: 'uuid', status: 'text' },
  ['status'],
);
