// The roster page's SQL. A page that writes is one statement (writePage): it matches every row
// on both keys, decides create / update / error with the rules of plan() (plan.ts, which a dry
// run still uses on matchPage's answer), inserts the new students, updates the matched ones
// whose values change, and answers only what the response and the run need: three counts and
// the rows with something to report (an error, or a program or campus value that matched
// nothing). Rows travel as one JSON parameter (json_to_recordset: plain json is parsed once,
// without building jsonb first), which both drivers accept. The institution's lock is held by
// the caller, so what the statement reads is what it writes against.

import type { Queryable } from '../../db/db.ts';
import { campusNamesSql } from '../campuses/names.ts';
import type { MatchRow, RowReport } from './plan.ts';
import type { RosterRow } from './rows.ts';

const current = (column: string, as: string) =>
  `CASE WHEN se.id IS NOT NULL THEN se.${column} ELSE sx.${column} END AS ${as}`;

const MATCH_SQL = `
WITH campus_names AS (${campusNamesSql})
SELECT r.ord,
       lower(r.email) AS email_key,
       se.id AS email_student_id,
       sx.id AS ext_student_id,
       p.id AS program_id,
       COALESCE(cn.id, cc.id) AS campus_id,
       ${current('cohort_id', 'cur_cohort_id')},
       ${current('email', 'cur_email')},
       ${current('student_id_ext', 'cur_ext')},
       ${current('first_name', 'cur_first_name')},
       ${current('last_name', 'cur_last_name')},
       ${current('program_id', 'cur_program_id')},
       ${current('campus_id', 'cur_campus_id')},
       ${current('first_in_family', 'cur_first_in_family')},
       to_char(CASE WHEN se.id IS NOT NULL THEN se.start_date ELSE sx.start_date END, 'YYYY-MM-DD')
         AS cur_start_date,
       ${current('departed_at', 'cur_departed_at')}
FROM json_to_recordset($2::json)
       AS r(ord int, email text, ext text, program_code text, campus_name text, campus_code text)
LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.ext
LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.program_code)
LEFT JOIN campus_names cn ON cn.key = lower(r.campus_name)
LEFT JOIN campus_names cc ON cc.key = lower(r.campus_code)`;
// No ORDER BY: plan() finds each row's match by its ord, so sorting 5000 wide rows bought nothing.

/** Every row's match and the matched student's stored values (a dry run plans on these). */
export async function matchPage(q: Queryable, institutionId: string, rows: RosterRow[]): Promise<MatchRow[]> {
  if (rows.length === 0) return [];
  const payload = rows.map((r) => ({
    ord: r.row,
    email: r.email,
    ext: r.student_id_ext,
    program_code: r.program_code ?? null,
    campus_name: r.campus_name ?? null,
    campus_code: r.campus_code ?? null,
  }));
  const { rows: matches } = await q.query<MatchRow>(MATCH_SQL, [institutionId, JSON.stringify(payload)]);
  return matches;
}

// plan()'s rules, row by row (every valid row of the page is in `r`, in row order by `row`):
// - a row repeating the email (lower-cased) or the student_id_ext of an earlier valid row is a
//   duplicate_key error naming that row (first_email / first_ext: the first row with the key,
//   whether that row imports or not);
// - else a row whose email names one student and student_id_ext another is a student_conflict;
// - else a row reaching the same student as an earlier such row is a duplicate_student error
//   naming it (first_target counts only rows that passed the two rules above, and is set only
//   on them when they matched a student: the row equal to it updates);
// - the rest import: no student matched creates one (target null), a matched student is updated when one of
//   its values would change (changes() in plan.ts), and counted as updated either way.
// Partitions on text compare bytes (COLLATE "C"): the same groups as the database's collation
// (which is deterministic), without its slower comparisons in the sort.
// The decided rows are put back in row order (the windows leave them in the order of the
// students they matched, or none): the INSERT and the UPDATE then go through the page, and
// through the students a previous page stored, in the order the SIS sent them.
// The UPDATE reaches its students by id alone (every target was matched inside the
// institution): given the institution's condition as well, the planner, whose statistics know
// nothing of the students a page has just created, joined every planned row to every student
// of the institution (25 million comparisons for 5000 rows).
const PAGE_SQL = `
WITH campus_names AS (${campusNamesSql}),
m AS (
  SELECT r.*, se.id AS email_sid, sx.id AS ext_sid, p.id AS program_id,
         COALESCE(cn.id, cc.id) AS campus_id, COALESCE(se.id, sx.id) AS target,
         min(r."row") OVER (PARTITION BY lower(r.email) COLLATE "C") AS first_email,
         min(r."row") OVER (PARTITION BY r.student_id_ext COLLATE "C") AS first_ext
  FROM json_to_recordset($3::json)
         AS r("row" int, email text, student_id_ext text, first_name text, last_name text,
              program_code text, campus_name text, campus_code text, first_in_family boolean,
              start_date date)
  LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
  LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.student_id_ext
  LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.program_code)
  LEFT JOIN campus_names cn ON cn.key = lower(r.campus_name)
  LEFT JOIN campus_names cc ON cc.key = lower(r.campus_code)
),
checked AS (
  SELECT m.*,
         m."row" > m.first_email OR m."row" > m.first_ext AS duplicate_key,
         m.email_sid IS NOT NULL AND m.ext_sid IS NOT NULL AND m.email_sid <> m.ext_sid AS two_students
  FROM m
),
decided AS (
  SELECT c.*,
         c.two_students AND NOT c.duplicate_key AS conflict,
         CASE WHEN NOT c.duplicate_key AND NOT c.two_students AND c.target IS NOT NULL
              THEN min(c."row") FILTER (WHERE NOT c.duplicate_key AND NOT c.two_students)
                     OVER (PARTITION BY c.target) END AS first_target
  FROM checked c
  ORDER BY c."row"
),
created AS (
  INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name,
                        program_id, campus_id, first_in_family, start_date)
  SELECT $1, $2, p.email, p.student_id_ext, p.first_name, p.last_name, p.program_id, p.campus_id,
         p.first_in_family, p.start_date
  FROM decided p WHERE NOT p.duplicate_key AND NOT p.conflict AND p.target IS NULL
  RETURNING 1
),
changed AS (
  UPDATE students s
  SET cohort_id = $2,
      email = p.email,
      student_id_ext = p.student_id_ext,
      first_name = COALESCE(p.first_name, s.first_name),
      last_name = COALESCE(p.last_name, s.last_name),
      program_id = COALESCE(p.program_id, s.program_id),
      campus_id = COALESCE(p.campus_id, s.campus_id),
      first_in_family = COALESCE(p.first_in_family, s.first_in_family),
      start_date = COALESCE(p.start_date, s.start_date),
      departed_at = NULL,
      updated_at = now()
  FROM decided p
  WHERE s.id = p.target AND p."row" = p.first_target
    AND (s.cohort_id <> $2::uuid
         OR s.email <> p.email
         OR s.student_id_ext <> p.student_id_ext
         OR COALESCE(p.first_name, s.first_name) IS DISTINCT FROM s.first_name
         OR COALESCE(p.last_name, s.last_name) IS DISTINCT FROM s.last_name
         OR COALESCE(p.program_id, s.program_id) IS DISTINCT FROM s.program_id
         OR COALESCE(p.campus_id, s.campus_id) IS DISTINCT FROM s.campus_id
         OR COALESCE(p.first_in_family, s.first_in_family) IS DISTINCT FROM s.first_in_family
         OR COALESCE(p.start_date, s.start_date) IS DISTINCT FROM s.start_date
         OR s.departed_at IS NOT NULL)
  RETURNING 1
)
SELECT (SELECT count(*) FROM created)::int AS created,
       (SELECT count(*) FROM decided WHERE "row" = first_target)::int AS updated,
       (SELECT count(*) FROM changed)::int AS changed,
       (SELECT json_agg(json_build_array(
                 d."row",
                 CASE WHEN d."row" > d.first_email THEN d.first_email END,
                 CASE WHEN d."row" > d.first_ext THEN d.first_ext END,
                 d.conflict,
                 CASE WHEN d."row" > d.first_target THEN d.first_target END,
                 d.email_sid IS NOT NULL,
                 d.program_code IS NOT NULL AND d.program_id IS NULL,
                 COALESCE(d.campus_name, d.campus_code) IS NOT NULL AND d.campus_id IS NULL)
               ORDER BY d."row")
        FROM decided d
        WHERE d.duplicate_key OR d.conflict OR d."row" > d.first_target
           OR (d.program_code IS NOT NULL AND d.program_id IS NULL)
           OR (COALESCE(d.campus_name, d.campus_code) IS NOT NULL AND d.campus_id IS NULL)) AS reports`;

export interface WrittenPage {
  created: number;
  /** Matched students (each counted as updated), changed or not. */
  updated: number;
  /** Of those, the ones whose stored values changed. */
  changed: number;
  /** In row order; only rows with something to report. */
  reports: RowReport[];
}

/** Matches, decides and writes the valid rows of a page in one statement. */
export async function writePage(
  q: Queryable,
  institutionId: string,
  cohortId: string,
  rows: RosterRow[],
): Promise<WrittenPage> {
  if (rows.length === 0) return { created: 0, updated: 0, changed: 0, reports: [] };
  const { rows: answer } = await q.query<Omit<WrittenPage, 'reports'> & { reports: RowReport[] | null }>(
    PAGE_SQL,
    [institutionId, cohortId, JSON.stringify(rows)],
  );
  const [page] = answer;
  return { ...page, reports: page.reports ?? [] };
}
