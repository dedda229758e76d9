// Enrolments: a student (by email, then student_id_ext) in a unit in a term, keyed by the three.
// One statement matches the rows, one inserts the new ones, one updates the changed ones.
import { type EnrolmentRow, enrolmentKeys, parseEnrolment, type RowProblem } from '../rows.ts';
import {
  firstOfEachKey,
  noChanges,
  parseAll,
  type SectionHandler,
  sortRow,
  writeChanges,
} from '../section.ts';

interface ResolvedEnrolment {
  i: number;
  by_email: string | null;
  by_ext: string | null;
  unit_id: string | null;
  term_id: string | null;
  id: string | null;
  status: string | null;
}

export const enrolments: SectionHandler = async (outer, rows) => {
  // Every error of an enrolment row carries the keys it was sent with, read from the row itself.
  const context = {
    ...outer,
    reject: (i: number, problem: RowProblem) => outer.reject(i, problem, enrolmentKeys(rows[i])),
  };
  const { q, institutionId } = context;
  const parsed = parseAll<EnrolmentRow>(context, rows, parseEnrolment);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  // One statement resolves every reference and finds the stored enrolment. The student is
  // matched by email first, then by student_id_ext, like the roster.
  const { rows: resolved } = await q.query<ResolvedEnrolment>(
    `SELECT r.i, se.id AS by_email, sx.id AS by_ext, u.id AS unit_id, t.id AS term_id, e.id, e.status
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, email text, ext text, unit text, term text)
     LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
     LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.ext
     LEFT JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.unit)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.term)
     LEFT JOIN enrolments e ON e.student_id = coalesce(se.id, sx.id) AND e.unit_id = u.id AND e.term_id = t.id`,
    [
      institutionId,
      JSON.stringify(
        parsed.map(({ i, value }) => ({
          i,
          email: value.email ?? null,
          ext: value.student_id_ext ?? null,
          unit: value.unit_code,
          term: value.term_code,
        })),
      ),
    ],
  );
  const found: (ResolvedEnrolment & { key: string; student_id: string })[] = [];
  for (const row of resolved) {
    const incoming = byIndex.get(row.i)!;
    const student = describeStudent(incoming);
    let missing = false;
    if (row.by_email && row.by_ext && row.by_email !== row.by_ext) {
      missing = true;
      context.reject(row.i, {
        code: 'student_conflict',
        message: `The email ${incoming.email} and the student ID ${incoming.student_id_ext} belong to two different students`,
        field: 'student_id_ext',
      });
    } else if (!row.by_email && !row.by_ext) {
      missing = true;
      context.reject(row.i, {
        code: 'student_not_found',
        message: `No student has ${student}`,
        field: incoming.email !== undefined ? 'email' : 'student_id_ext',
      });
    }
    if (!row.unit_id) {
      missing = true;
      context.reject(row.i, {
        code: 'unit_not_found',
        message: `No unit has the code ${incoming.unit_code}`,
        field: 'unit_code',
      });
    }
    if (!row.term_id) {
      missing = true;
      context.reject(row.i, {
        code: 'term_not_found',
        message: `No term has the code ${incoming.term_code}${context.dryRun ? ' among the stored terms (a dry run does not see the terms of the same push)' : ''}`,
        field: 'term_code',
      });
    }
    if (missing) continue;
    const studentId = (row.by_email ?? row.by_ext)!;
    found.push({ ...row, student_id: studentId, key: `${studentId}/${row.unit_id}/${row.term_id}` });
  }
  const kept = firstOfEachKey(context, found, (row) => {
    const incoming = byIndex.get(row.i)!;
    return `the enrolment of the student with ${describeStudent(incoming)} in unit ${incoming.unit_code}, term ${incoming.term_code}`;
  });
  const changes = noChanges();
  for (const row of kept) {
    const incoming = byIndex.get(row.i)!;
    sortRow(
      context,
      changes,
      row,
      {
        student_id: row.student_id,
        unit_id: row.unit_id,
        term_id: row.term_id,
        status: incoming.status ?? 'enrolled',
      },
      // An omitted status keeps the stored one.
      { status: incoming.status ?? row.status },
    );
  }
  await writeChanges(context, changes, {
    insert: `INSERT INTO enrolments (institution_id, student_id, unit_id, term_id, status, created_at, updated_at)
       SELECT $1, r.student_id, r.unit_id, r.term_id, r.status, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(student_id uuid, unit_id uuid, term_id uuid, status text)
       ON CONFLICT DO NOTHING`,
    update: `UPDATE enrolments e SET status = r.status, updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, status text)
       WHERE e.id = r.id AND e.institution_id = $1`,
  });
};

function describeStudent(row: EnrolmentRow): string {
  const keys = [];
  if (row.email !== undefined) keys.push(`the email ${row.email}`);
  if (row.student_id_ext !== undefined) keys.push(`the student ID ${row.student_id_ext}`);
  return keys.join(' or ');
}
