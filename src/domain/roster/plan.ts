// Planning a roster page: given its valid rows and what the match query found for each, decide
// which rows create a student, which update one and which are errors (duplicates inside the
// page, a row naming two different students), and which values matched nothing (warnings).
// Pure functions: no I/O, deterministic in row order. A dry run plans with them on the match
// query's answer; a push takes the same decisions inside its one statement (queries.ts), whose
// reports reported() turns into plan()'s errors and warnings (a property test holds the two
// to the same decisions).

import { fieldWords } from '../../lib/field-words.ts';
import { type RosterRow, type RowError, rowError } from './rows.ts';

/** Stable codes of roster warnings: a value that matched nothing, so the row imported without it. */
export const rosterWarningCodes = ['unknown_program_code', 'unknown_campus'] as const;

/**
 * Something a push could not match. The rows listed imported, with the field left unset for a
 * new student and kept for an existing one. One entry per distinct value (case-insensitive).
 */
export interface RosterWarning {
  code: (typeof rosterWarningCodes)[number];
  /** program_code, or campus_name / campus_code (whichever the first row carrying it sent). */
  field: string;
  /** The value as the first row carrying it sent it. */
  value: string;
  /** 0-based indexes of the rows carrying it. */
  rows: number[];
  message: string;
}

export interface ValueRows {
  value: string;
  rows: number[];
}

export interface MatchRow {
  ord: number;
  email_key: string;
  email_student_id: string | null;
  ext_student_id: string | null;
  program_id: string | null;
  campus_id: string | null;
  // The stored values of the student matched (by email, else by student_id_ext).
  cur_cohort_id: string | null;
  cur_email: string | null;
  cur_ext: string | null;
  cur_first_name: string | null;
  cur_last_name: string | null;
  cur_program_id: string | null;
  cur_campus_id: string | null;
  cur_first_in_family: boolean | null;
  cur_start_date: string | null;
  /** Set when the matched student was departed by a full sync; the push brings them back. */
  cur_departed_at: Date | null;
}

/**
 * What the page's one statement (queries.ts, writePage) reports of one row, as an array: its index; the first row with its email and
 * with its student_id_ext when it repeats them (else null); whether it is a student_conflict;
 * the earlier row reaching its student when it is a duplicate_student (else null); whether
 * its student was matched by email; whether its program code, and its campus value, matched
 * nothing.
 */
export type RowReport = [
  row: number,
  firstEmail: number | null,
  firstExt: number | null,
  conflict: boolean,
  firstTarget: number | null,
  byEmail: boolean,
  programUnknown: boolean,
  campusUnknown: boolean,
];

export interface Planned {
  row: RosterRow;
  match: MatchRow;
  /** The student to update; undefined means create. */
  studentId?: string;
}

function addTo<T extends ValueRows>(map: Map<string, T>, key: string, row: number, first: () => T): void {
  const entry = map.get(key);
  if (entry) entry.rows.push(row);
  else map.set(key, first());
}

/** A row that imports, and whether its program code and its campus value matched nothing. */
export interface Unmatched {
  row: RosterRow;
  program: boolean;
  campus: boolean;
}

/** The program codes and campus values of the planned rows that matched nothing, in row order. */
export function unmatched(planned: Planned[]): RosterWarning[] {
  return warningsOf(
    planned.map(({ row, match: m }) => ({
      row,
      program: row.program_code !== undefined && !m.program_id,
      campus: (row.campus_name ?? row.campus_code) !== undefined && !m.campus_id,
    })),
  );
}

/** One warning per distinct value (case-insensitive) that matched nothing, in row order. */
export function warningsOf(rows: Unmatched[]): RosterWarning[] {
  const programs = new Map<string, RosterWarning>();
  const campuses = new Map<string, RosterWarning>();
  for (const { row, program, campus: campusUnknown } of rows) {
    if (program && row.program_code !== undefined) {
      const value = row.program_code;
      addTo(programs, value.toLowerCase(), row.row, () => ({
        code: 'unknown_program_code',
        field: 'program_code',
        value,
        rows: [row.row],
        message: `no program has the code ${JSON.stringify(value)}; the rows imported without a program (a stored one is kept)`,
      }));
    }
    const field = row.campus_name !== undefined ? 'campus_name' : 'campus_code';
    const campus = row.campus_name ?? row.campus_code;
    if (campusUnknown && campus !== undefined) {
      addTo(campuses, campus.toLowerCase(), row.row, () => ({
        code: 'unknown_campus',
        field,
        value: campus,
        rows: [row.row],
        message: `no campus is named ${JSON.stringify(campus)}; the rows imported without a campus (a stored one is kept)`,
      }));
    }
  }
  return [...programs.values(), ...campuses.values()];
}

/** Whether applying the row to the matched student would change anything stored. */
export function changes(p: Planned, cohortId: string): boolean {
  const { row, match: m } = p;
  return (
    m.cur_cohort_id !== cohortId ||
    m.cur_email !== row.email ||
    m.cur_ext !== row.student_id_ext ||
    (row.first_name !== undefined && row.first_name !== m.cur_first_name) ||
    (row.last_name !== undefined && row.last_name !== m.cur_last_name) ||
    (m.program_id !== null && m.program_id !== m.cur_program_id) ||
    (m.campus_id !== null && m.campus_id !== m.cur_campus_id) ||
    (row.first_in_family !== undefined && row.first_in_family !== m.cur_first_in_family) ||
    (row.start_date !== undefined && row.start_date !== m.cur_start_date) ||
    m.cur_departed_at !== null
  );
}

type KeyField = 'email' | 'student_id_ext';

/** The problem of a row repeating a key of the earlier row `first`. */
function duplicateKey(field: KeyField, first: number) {
  return {
    code: 'duplicate_key' as const,
    field,
    message: `${fieldWords(field)} already in this batch: row ${first} has the same ${fieldWords(field)}`,
  };
}

/** A row whose email names one stored student and student_id_ext another. */
function studentConflict(row: RosterRow): RowError {
  return {
    row: row.row,
    email: row.email,
    student_id_ext: row.student_id_ext,
    code: 'student_conflict',
    field: 'student_id_ext',
    message:
      'email belongs to one existing student and student_id_ext to another; the two are never merged: ' +
      'correct the row or the stored students',
  };
}

/** A row reaching the same stored student as the earlier row `earlier` (by `field`). */
function duplicateStudent(row: RosterRow, field: KeyField, earlier: number): RowError {
  return {
    row: row.row,
    email: row.email,
    student_id_ext: row.student_id_ext,
    code: 'duplicate_student',
    field,
    message: `matches the same existing student as row ${earlier}; send it again in a later request`,
  };
}

/**
 * Decides, for every valid row, create / update / error, from the page and its matches.
 * Pure apart from its inputs; deterministic in row order.
 */
export function plan(valid: RosterRow[], matches: MatchRow[]) {
  const byOrd = new Map(matches.map((m) => [m.ord, m]));
  const errors: RowError[] = [];
  const planned: Planned[] = [];
  const firstEmail = new Map<string, number>();
  const firstExt = new Map<string, number>();
  const firstTarget = new Map<string, number>();
  const duplicateEmails = new Map<string, ValueRows>();
  const duplicateExts = new Map<string, ValueRows>();

  for (const row of valid) {
    const m = byOrd.get(row.row);
    if (!m) throw new Error(`roster match lost row ${row.row}`);
    const problems: ReturnType<typeof duplicateKey>[] = [];
    // Each key in turn: a row repeating a key of an earlier row is an error naming that row, and
    // both rows are listed under the duplicate value; the first row with a key keeps it.
    const keys = [
      ['email', m.email_key, firstEmail, duplicateEmails],
      ['student_id_ext', row.student_id_ext, firstExt, duplicateExts],
    ] as const;
    for (const [field, key, firsts, duplicates] of keys) {
      const first = firsts.get(key);
      if (first === undefined) {
        firsts.set(key, row.row);
        continue;
      }
      problems.push(duplicateKey(field, first));
      const entry = duplicates.get(key);
      if (entry) entry.rows.push(row.row);
      else duplicates.set(key, { value: key, rows: [first, row.row] });
    }
    if (problems.length > 0) {
      errors.push(rowError(row.row, row, problems));
      continue;
    }
    if (m.email_student_id && m.ext_student_id && m.email_student_id !== m.ext_student_id) {
      errors.push(studentConflict(row));
      continue;
    }
    const target = m.email_student_id ?? m.ext_student_id ?? undefined;
    if (target) {
      const earlier = firstTarget.get(target);
      if (earlier !== undefined) {
        errors.push(
          duplicateStudent(row, m.email_student_id === target ? 'email' : 'student_id_ext', earlier),
        );
        continue;
      }
      firstTarget.set(target, row.row);
    }
    planned.push({ row, match: m, studentId: target });
  }
  return { errors, planned, duplicateEmails, duplicateExts };
}

/**
 * The same decisions as plan(), as the page's one statement took them (queries.ts, writePage):
 * its reports, each naming a valid row with something to say, become the row errors and the
 * warnings, with plan()'s codes, fields and messages.
 */
export function reported(valid: RosterRow[], reports: readonly RowReport[]) {
  if (reports.length === 0) return { errors: [], warnings: [] };
  const byRow = new Map(valid.map((row) => [row.row, row]));
  const errors: RowError[] = [];
  const imported: Unmatched[] = [];
  for (const [index, firstEmail, firstExt, conflict, firstTarget, byEmail, program, campus] of reports) {
    const row = byRow.get(index);
    if (!row) throw new Error(`roster statement reported an unknown row ${index}`);
    const problems: ReturnType<typeof duplicateKey>[] = [];
    if (firstEmail !== null) problems.push(duplicateKey('email', firstEmail));
    if (firstExt !== null) problems.push(duplicateKey('student_id_ext', firstExt));
    if (problems.length > 0) errors.push(rowError(row.row, row, problems));
    else if (conflict) errors.push(studentConflict(row));
    else if (firstTarget !== null)
      errors.push(duplicateStudent(row, byEmail ? 'email' : 'student_id_ext', firstTarget));
    else imported.push({ row, program, campus });
  }
  return { errors, warnings: warningsOf(imported) };
}
