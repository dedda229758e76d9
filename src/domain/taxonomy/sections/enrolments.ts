// Enrolments: a student (by email, then student_id_ext) in a unit in a term, keyed by the three
// (sql/enrolments.ts). A row whose student, unit or term matches nothing is rejected before
// repeated keys are dropped; every error of a row carries the keys it was sent with.
import { type EnrolmentRow, enrolmentKeys, parseEnrolment, type RowProblem } from '../rows.ts';
import { type SectionContext, type SectionHandler, sectionHandler, sortRow } from '../section.ts';
import { type ResolvedEnrolment, resolveEnrolments, writeEnrolments } from '../sql/enrolments.ts';

type FoundEnrolment = ResolvedEnrolment & { key: string; student_id: string };

function describeStudent(row: EnrolmentRow): string {
  const keys = [];
  if (row.email !== undefined) keys.push(`the email ${row.email}`);
  if (row.student_id_ext !== undefined) keys.push(`the student ID ${row.student_id_ext}`);
  return keys.join(' or ');
}

/** What a resolved row lacks (its student, unit or term), each a problem; none when all were found. */
function missingReferences(row: ResolvedEnrolment, incoming: EnrolmentRow, dryRun: boolean): RowProblem[] {
  const problems: RowProblem[] = [];
  if (row.by_email && row.by_ext && row.by_email !== row.by_ext) {
    problems.push({
      code: 'student_conflict',
      message: `The email ${incoming.email} and the student ID ${incoming.student_id_ext} belong to two different students`,
      field: 'student_id_ext',
    });
  } else if (!row.by_email && !row.by_ext) {
    problems.push({
      code: 'student_not_found',
      message: `No student has ${describeStudent(incoming)}`,
      field: incoming.email !== undefined ? 'email' : 'student_id_ext',
    });
  }
  if (!row.unit_id) {
    problems.push({
      code: 'unit_not_found',
      message: `No unit has the code ${incoming.unit_code}`,
      field: 'unit_code',
    });
  }
  if (!row.term_id) {
    problems.push({
      code: 'term_not_found',
      message: `No term has the code ${incoming.term_code}${dryRun ? ' among the stored terms (a dry run does not see the terms of the same push)' : ''}`,
      field: 'term_code',
    });
  }
  return problems;
}

/** The rows whose student, unit and term were all found, keyed by the three; the others rejected. */
function resolve(
  context: SectionContext,
  resolved: ResolvedEnrolment[],
  byIndex: Map<number, EnrolmentRow>,
): FoundEnrolment[] {
  const found: FoundEnrolment[] = [];
  for (const row of resolved) {
    const problems = missingReferences(row, byIndex.get(row.i)!, context.dryRun);
    for (const problem of problems) context.reject(row.i, problem);
    if (problems.length > 0) continue;
    const studentId = (row.by_email ?? row.by_ext)!;
    found.push({ ...row, student_id: studentId, key: `${studentId}/${row.unit_id}/${row.term_id}` });
  }
  return found;
}

const section = sectionHandler({
  parse: parseEnrolment,
  match: (q, institutionId, parsed) =>
    resolveEnrolments(
      q,
      institutionId,
      parsed.map(({ i, value }) => ({
        i,
        email: value.email ?? null,
        ext: value.student_id_ext ?? null,
        unit: value.unit_code,
        term: value.term_code,
      })),
    ),
  resolve,
  describeKey: (incoming: EnrolmentRow) =>
    `the enrolment of the student with ${describeStudent(incoming)} in unit ${incoming.unit_code}, term ${incoming.term_code}`,
  decide(context, changes, row: FoundEnrolment, incoming) {
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
  },
  write: writeEnrolments,
});

export const enrolments: SectionHandler = (outer, rows) =>
  section(
    {
      ...outer,
      reject: (i: number, problem: RowProblem) => outer.reject(i, problem, enrolmentKeys(rows[i])),
    },
    rows,
  );
