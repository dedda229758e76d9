// The enrolments listing's statements (../enrolment-listing.ts explains the walk over
// (term, unit) pairs they implement). Every statement reads the filters and the cursor from one
// JSON record ($2), $1 being the institution and $3 the rows wanted.
import type { Queryable } from '../../../db/db.ts';
import type { CursorKey } from '../../../lib/cursor.ts';
import type { EnrolmentListing } from '../model.ts';

export type ListedEnrolment = EnrolmentListing & { sort_key: CursorKey };

/** A (term, unit) pair holding a matching enrolment, as PAIRS_SQL returns it. */
export interface EnrolmentPair {
  ord: number;
}

const FILTER = `json_to_record($2::json) AS f(
  term_code text, unit_code text, email text, status text,
  after_date date, after_term text, after_unit text, after_email text)`;

// OFFSET 0 keeps the sorted pairs a subquery of their own, so the probes run in their order and
// stop at the LIMIT instead of probing every pair first.
const PAIRS_SQL = `
SELECT p.ord, p.term_id, p.unit_id, p.start_date, p.term_key, p.unit_key, p.term_code, p.unit_code
FROM (
  SELECT row_number() OVER (ORDER BY t.start_date, lower(t.code), lower(u.code)) AS ord,
         t.id AS term_id, u.id AS unit_id, to_char(t.start_date, 'YYYY-MM-DD') AS start_date,
         lower(t.code) AS term_key, lower(u.code) AS unit_key, t.code AS term_code, u.code AS unit_code
  FROM ${FILTER}, terms t JOIN units u ON u.institution_id = t.institution_id
  WHERE t.institution_id = $1
    AND (f.term_code IS NULL OR lower(t.code) = lower(f.term_code))
    AND (f.unit_code IS NULL OR lower(u.code) = lower(f.unit_code))
    AND (f.after_date IS NULL
      OR (t.start_date, lower(t.code), lower(u.code)) >= (f.after_date, f.after_term, f.after_unit))
  ORDER BY ord
  OFFSET 0
) p
CROSS JOIN LATERAL (
  SELECT 1 FROM enrolments e, ${FILTER}
  WHERE e.unit_id = p.unit_id AND e.term_id = p.term_id AND e.institution_id = $1
    AND (f.status IS NULL OR e.status = lower(f.status))
  LIMIT 1
) AS hit
ORDER BY p.ord
LIMIT $3`;

const PAIR_ROWS_SQL = `
SELECT x.id, x.email, x.student_id_ext, p.unit_code, p.term_code, x.status, x.created_at, x.updated_at,
       json_build_array(p.start_date, p.term_key, p.unit_key, lower(x.email)) AS sort_key
FROM json_to_recordset($4::json) AS p(
       ord int, term_id uuid, unit_id uuid, start_date text, term_key text, unit_key text,
       term_code text, unit_code text)
CROSS JOIN ${FILTER}
CROSS JOIN LATERAL (
  SELECT e.id, s.email, s.student_id_ext, e.status, e.created_at, e.updated_at
  FROM enrolments e JOIN students s ON s.id = e.student_id AND s.institution_id = e.institution_id
  WHERE e.unit_id = p.unit_id AND e.term_id = p.term_id AND e.institution_id = $1
    AND (f.status IS NULL OR e.status = lower(f.status))
    AND (f.after_date IS NULL
      OR (p.start_date::date, p.term_key, p.unit_key) > (f.after_date, f.after_term, f.after_unit)
      OR lower(s.email) > f.after_email)
  ORDER BY lower(s.email)
  LIMIT $3
) AS x
ORDER BY p.ord, lower(x.email)
LIMIT $3`;

// One student's enrolments are few: read them all and sort.
const STUDENT_ROWS_SQL = `
SELECT e.id, s.email, s.student_id_ext, u.code AS unit_code, t.code AS term_code, e.status,
       e.created_at, e.updated_at,
       json_build_array(t.start_date, lower(t.code), lower(u.code), lower(s.email)) AS sort_key
FROM ${FILTER}
JOIN students s ON s.institution_id = $1 AND lower(s.email) = lower(f.email)
JOIN enrolments e ON e.student_id = s.id AND e.institution_id = $1
JOIN units u ON u.id = e.unit_id
JOIN terms t ON t.id = e.term_id
WHERE (f.term_code IS NULL OR lower(t.code) = lower(f.term_code))
  AND (f.unit_code IS NULL OR lower(u.code) = lower(f.unit_code))
  AND (f.status IS NULL OR e.status = lower(f.status))
  AND (f.after_date IS NULL
    OR (t.start_date, lower(t.code), lower(u.code), lower(s.email))
       > (f.after_date, f.after_term, f.after_unit, f.after_email))
ORDER BY t.start_date, lower(t.code), lower(u.code), lower(s.email)
LIMIT $3`;

/** One student's enrolments after the cursor, in listing order. */
export async function selectStudentEnrolments(
  q: Queryable,
  institutionId: string,
  filter: string,
  want: number,
): Promise<ListedEnrolment[]> {
  const { rows } = await q.query<ListedEnrolment>(STUDENT_ROWS_SQL, [institutionId, filter, want]);
  return rows;
}

/** The (term, unit) pairs at or after the cursor's holding a matching enrolment, at most `limit`. */
export async function selectEnrolmentPairs(
  q: Queryable,
  institutionId: string,
  filter: string,
  limit: number,
): Promise<EnrolmentPair[]> {
  const { rows } = await q.query<EnrolmentPair>(PAIRS_SQL, [institutionId, filter, limit]);
  return rows;
}

/** The enrolments of `pairs` after the cursor, pair by pair in email order, at most `want`. */
export async function selectPairEnrolments(
  q: Queryable,
  institutionId: string,
  filter: string,
  want: number,
  pairs: EnrolmentPair[],
): Promise<ListedEnrolment[]> {
  const { rows } = await q.query<ListedEnrolment>(PAIR_ROWS_SQL, [
    institutionId,
    filter,
    want,
    JSON.stringify(pairs),
  ]);
  return rows;
}
