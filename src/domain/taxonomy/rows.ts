// Pure per-row rules of the enrolments feed: each row of a section is read on its own, so a
// malformed row of any shape (a string, a null, a number, an object with wrong types)
// becomes that row's error and never stops the rest of the section.
//
// Optional text fields follow one convention everywhere:
//   absent            -> undefined: the stored value is kept
//   null or ""        -> null: the stored value is cleared (where clearing is allowed)
//   a string          -> trimmed value
// Names cannot be cleared by the feed: an absent, null or empty name keeps the stored name
// (spec 2.3: a re-push without a name never overwrites it, least of all with the code).

import { capitalised, fieldWords } from '../../lib/field-words.ts';
import { isStorableText } from '../../lib/text.ts';

/** Stable row-level error codes (the `code` of an entry in the response's `errors`). */
export const rowErrorCodes = [
  'invalid_row',
  'missing_field',
  'invalid_field',
  'conflicting_fields',
  'duplicate_key',
  'invalid_date',
  'end_before_start',
  'invalid_status',
  'program_not_found',
  'campus_not_found',
  'student_not_found',
  'student_conflict',
  'unit_not_found',
  'term_not_found',
] as const;

export type RowErrorCode = (typeof rowErrorCodes)[number];

export interface RowProblem {
  code: RowErrorCode;
  message: string;
  /** The row field at fault, when one is. */
  field?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: RowProblem };

/** Longest accepted key (codes, campus names): keeps every key well inside an index entry. */
export const KEY_MAX = 100;
/** Longest accepted free text (names, coordinator fields). */
export const TEXT_MAX = 200;

type Row = Record<string, unknown>;

const fail = (code: RowErrorCode, message: string, field?: string): { ok: false; problem: RowProblem } => ({
  ok: false,
  problem: field ? { code, message: capitalised(message), field } : { code, message: capitalised(message) },
});

export function isRowObject(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

type Text = { ok: true; value: string | null | undefined } | { ok: false; problem: RowProblem };

/** An optional text field: undefined when absent, null when null or blank, else the trimmed string. */
export function optionalText(row: Row, field: string, max: number): Text {
  if (!Object.hasOwn(row, field) || row[field] === undefined) return { ok: true, value: undefined };
  const raw = row[field];
  if (raw === null) return { ok: true, value: null };
  if (typeof raw !== 'string')
    return fail('invalid_field', `the ${fieldWords(field)} must be text, not ${describe(raw)}`, field);
  if (!isStorableText(raw))
    return fail('invalid_field', `the ${fieldWords(field)} contains characters that cannot be stored`, field);
  const value = raw.trim();
  if (value.length > max)
    return fail('invalid_field', `the ${fieldWords(field)} is longer than ${max} characters`, field);
  return { ok: true, value: value === '' ? null : value };
}

/**
 * A key field (a code or a name used as key): required, a non-blank string (a safe integer is
 * accepted and read as its decimal digits, as spreadsheets export numeric codes).
 */
export function requiredKey(row: Row, field: string, max = KEY_MAX): Parsed<string> {
  let raw = row[field];
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) raw = String(raw);
  if (raw === undefined || raw === null)
    return fail('missing_field', `the ${fieldWords(field)} is missing`, field);
  const text = optionalText({ [field]: raw }, field, max);
  if (!text.ok) return text;
  if (text.value == null) return fail('missing_field', `the ${fieldWords(field)} is blank`, field);
  return { ok: true, value: text.value };
}

function notObject(row: unknown): { ok: false; problem: RowProblem } {
  return fail('invalid_row', `the row must be a JSON object, not ${describe(row)}`);
}

export interface ProgramRow {
  code: string;
  /** undefined: keep the stored name. */
  name: string | undefined;
  /** undefined: keep; null: clear. */
  coordinator_name: string | null | undefined;
  coordinator_title: string | null | undefined;
}

/** A program row (spec 2.3): program_code is the key; name is kept when omitted. */
export function parseProgram(row: unknown): Parsed<ProgramRow> {
  if (!isRowObject(row)) return notObject(row);
  const code = requiredKey(row, 'program_code');
  if (!code.ok) return code;
  const name = optionalText(row, 'name', TEXT_MAX);
  if (!name.ok) return name;
  const coordinatorName = optionalText(row, 'coordinator_name', TEXT_MAX);
  if (!coordinatorName.ok) return coordinatorName;
  const coordinatorTitle = optionalText(row, 'coordinator_title', TEXT_MAX);
  if (!coordinatorTitle.ok) return coordinatorTitle;
  return {
    ok: true,
    value: {
      code: code.value,
      name: name.value ?? undefined,
      coordinator_name: coordinatorName.value,
      coordinator_title: coordinatorTitle.value,
    },
  };
}

export interface CampusRow {
  name: string;
}

/** A campus row (spec 2.4): `name` is the key; `campus_name` is an alias of it. */
export function parseCampus(row: unknown): Parsed<CampusRow> {
  if (!isRowObject(row)) return notObject(row);
  const hasName = row.name !== undefined && row.name !== null;
  const hasAlias = row.campus_name !== undefined && row.campus_name !== null;
  if (!hasName && !hasAlias)
    return fail('missing_field', "the campus's name is missing (name, or campus_name)", 'name');
  const name = hasName ? requiredKey(row, 'name') : undefined;
  if (name && !name.ok) return name;
  const alias = hasAlias ? requiredKey(row, 'campus_name') : undefined;
  if (alias && !alias.ok) return alias;
  if (name?.ok && alias?.ok && name.value.toLowerCase() !== alias.value.toLowerCase()) {
    return fail(
      'conflicting_fields',
      `the campus is named both "${name.value}" and "${alias.value}": send one name`,
      'campus_name',
    );
  }
  const value = name?.ok ? name.value : alias?.ok ? alias.value : '';
  return { ok: true, value: { name: value } };
}

/** A calendar date `yyyy-mm-dd` that exists (no 31 April), years 1900 to 2999. */
export function optionalDate(row: Row, field: string): Parsed<string | undefined> {
  const raw = row[field];
  if (raw === undefined || raw === null || raw === '') return { ok: true, value: undefined };
  if (typeof raw !== 'string')
    return fail(
      'invalid_date',
      `the ${fieldWords(field)} must be a date written YYYY-MM-DD, not ${describe(raw)}`,
      field,
    );
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (
    !match ||
    year < 1900 ||
    year > 2999 ||
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return fail('invalid_date', `the ${fieldWords(field)} must be a real date written YYYY-MM-DD`, field);
  }
  return { ok: true, value: raw.trim() };
}

export interface TermRow {
  code: string;
  /** undefined: keep the stored name. */
  name: string | undefined;
  /** undefined: keep the stored date (required when the term is new). */
  start_date: string | undefined;
  end_date: string | undefined;
}

/** A term of the teaching calendar: term_code is the key; dates are yyyy-mm-dd, end not before start. */
export function parseTerm(row: unknown): Parsed<TermRow> {
  if (!isRowObject(row)) return notObject(row);
  const code = requiredKey(row, 'term_code');
  if (!code.ok) return code;
  const name = optionalText(row, 'name', TEXT_MAX);
  if (!name.ok) return name;
  const start = optionalDate(row, 'start_date');
  if (!start.ok) return start;
  const end = optionalDate(row, 'end_date');
  if (!end.ok) return end;
  const value = {
    code: code.value,
    name: name.value ?? undefined,
    start_date: start.value,
    end_date: end.value,
  };
  const order = checkTermDates(value);
  return order ?? { ok: true, value };
}

/** end_date must not be before start_date (ISO dates compare as strings). */
export function checkTermDates(term: { start_date?: string | null; end_date?: string | null }) {
  if (term.start_date && term.end_date && term.end_date < term.start_date) {
    return fail(
      'end_before_start',
      `the term ends (${term.end_date}) before it starts (${term.start_date})`,
      'end_date',
    );
  }
  return undefined;
}

export interface UnitRow {
  code: string;
  name: string | undefined;
  /** undefined: keep the stored link; null: clear it; a string: the program's code. */
  program_code: string | null | undefined;
  /** undefined: keep; null: clear; a string: the campus's name. */
  campus_name: string | null | undefined;
}

/** A unit: unit_code is the key; program_code and campus_name (alias campus_code) link it. */
export function parseUnit(row: unknown): Parsed<UnitRow> {
  if (!isRowObject(row)) return notObject(row);
  const code = requiredKey(row, 'unit_code');
  if (!code.ok) return code;
  const name = optionalText(row, 'name', TEXT_MAX);
  if (!name.ok) return name;
  const program = optionalReference(row, 'program_code');
  if (!program.ok) return program;
  const campusField =
    Object.hasOwn(row, 'campus_name') || !Object.hasOwn(row, 'campus_code') ? 'campus_name' : 'campus_code';
  const campus = optionalReference(row, campusField);
  if (!campus.ok) return campus;
  return {
    ok: true,
    value: {
      code: code.value,
      name: name.value ?? undefined,
      program_code: program.value,
      campus_name: campus.value,
    },
  };
}

/** An optional reference to another key: like optional text, integers read as digits. */
function optionalReference(row: Row, field: string) {
  const raw = row[field];
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return { ok: true as const, value: String(raw) };
  return optionalText(row, field, KEY_MAX);
}

export const enrolmentStatuses = ['enrolled', 'withdrawn', 'completed'] as const;
export type EnrolmentStatus = (typeof enrolmentStatuses)[number];

export interface EnrolmentRow {
  email: string | undefined;
  student_id_ext: string | undefined;
  unit_code: string;
  term_code: string;
  /** undefined: keep the stored status (a new enrolment is `enrolled`). */
  status: EnrolmentStatus | undefined;
}

/** An enrolment: a student (email and/or student_id_ext), a unit_code and a term_code; a status. */
export function parseEnrolment(row: unknown): Parsed<EnrolmentRow> {
  if (!isRowObject(row)) return notObject(row);
  const email = optionalText(row, 'email', 320);
  if (!email.ok) return email;
  const ext = optionalReference(row, 'student_id_ext');
  if (!ext.ok) return ext;
  if (email.value == null && ext.value == null) {
    return fail('missing_field', "the student is missing: give the student's email or student ID", 'email');
  }
  const unit = requiredKey(row, 'unit_code');
  if (!unit.ok) return unit;
  const term = requiredKey(row, 'term_code');
  if (!term.ok) return term;
  const status = optionalText(row, 'status', 40);
  if (!status.ok) return status;
  const normalised = status.value?.toLowerCase();
  if (normalised != null && !(enrolmentStatuses as readonly string[]).includes(normalised)) {
    return fail('invalid_status', `the status must be one of ${enrolmentStatuses.join(', ')}`, 'status');
  }
  return {
    ok: true,
    value: {
      email: email.value ?? undefined,
      student_id_ext: ext.value ?? undefined,
      unit_code: unit.value,
      term_code: term.value,
      status: (normalised ?? undefined) as EnrolmentStatus | undefined,
    },
  };
}

/**
 * The keys an enrolment row was sent with, carried by each of its row errors so the SIS can
 * find the record: each trimmed as sent (an integer read as its digits), or null when absent,
 * blank, of another type or not storable text within the key length.
 */
export interface EnrolmentKeys {
  email: string | null;
  student_id_ext: string | null;
  unit_code: string | null;
  term_code: string | null;
}

export function enrolmentKeys(row: unknown): EnrolmentKeys {
  const source = isRowObject(row) ? row : {};
  const key = (field: string, max: number): string | null => {
    const raw = source[field];
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) return String(raw);
    const text = optionalText({ [field]: raw }, field, max);
    return text.ok ? (text.value ?? null) : null;
  };
  return {
    email: key('email', 320),
    student_id_ext: key('student_id_ext', KEY_MAX),
    unit_code: key('unit_code', KEY_MAX),
    term_code: key('term_code', KEY_MAX),
  };
}
