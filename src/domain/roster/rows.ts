// Pure per-row rules of the roster sync (spec 2.1): one element of `students`, of any JSON
// shape, becomes either a normalised row or a row error: a stable code and the field of the
// first problem, and a message saying everything that is wrong with it. Nothing here touches
// the database; matching happens in sync.ts.

import { capitalised, fieldWords } from '../../lib/field-words.ts';
import { isStorableText } from '../../lib/text.ts';

/** A student row that passed validation, ready for matching. */
export interface RosterRow {
  /** 0-based position of the row in the request's `students` array. */
  row: number;
  email: string;
  student_id_ext: string;
  /** undefined: not sent (or null / empty), so a stored value is kept. */
  first_name?: string;
  last_name?: string;
  program_code?: string;
  campus_name?: string;
  campus_code?: string;
  first_in_family?: boolean;
  /** A valid yyyy-mm-dd date; an invalid one is dropped and reported in `badDate`. */
  start_date?: string;
}

export interface BadDate {
  row: number;
  /** The value sent: as is when a string, otherwise its JSON text; cut to 100 characters. */
  value: string;
}

/**
 * Stable codes of roster row errors (the `code` of an entry of `errors`), the same vocabulary
 * as the enrolments feed. Documented in docs/roster-sync.md and the OpenAPI description.
 */
export const rosterRowErrorCodes = [
  /** The element of `students` is not a JSON object. */
  'invalid_row',
  /** email or student_id_ext is absent, null or blank. */
  'missing_field',
  /** A field has the wrong type, is too long, holds text that cannot be stored, or is not an email address / boolean. */
  'invalid_field',
  /** An earlier valid row of the page has the same email or student_id_ext. */
  'duplicate_key',
  /** The email belongs to one stored student and the student_id_ext to another. */
  'student_conflict',
  /** The row reaches the same stored student as an earlier row of the page (one by email, one by student_id_ext). */
  'duplicate_student',
] as const;

export type RosterRowErrorCode = (typeof rosterRowErrorCodes)[number];

/**
 * The keys a rejected row was sent with, so the SIS can find the record: each as sent (trimmed),
 * or null when absent, blank, not a string, too long or not storable text.
 */
export interface RowKeys {
  email: string | null;
  student_id_ext: string | null;
}

/** One entry of `errors`: one per rejected row; `code` and `field` name its first problem. */
export interface RowError extends RowKeys {
  /** 0-based index of the row in `students`. */
  row: number;
  code: RosterRowErrorCode;
  /** The row field at fault, when one is. */
  field?: string;
  /** Every problem of the row, for people, separated by `; `. */
  message: string;
}

interface Problem {
  code: RosterRowErrorCode;
  field?: string;
  message: string;
}

/** One row error from its problems (at least one), in the order they were found. */
export function rowError(row: number, keys: RowKeys, problems: Problem[]): RowError {
  const [first] = problems;
  return {
    row,
    email: keys.email,
    student_id_ext: keys.student_id_ext,
    code: first.code,
    ...(first.field !== undefined ? { field: first.field } : {}),
    message: capitalised(problems.map((p) => p.message).join('; ')),
  };
}

export type RowResult =
  | { ok: true; row: RosterRow; badDate?: BadDate }
  | { ok: false; error: RowError; badDate?: BadDate };

export const LIMITS = {
  email: 254,
  student_id_ext: 200,
  name: 200,
  program_code: 200,
  campus: 200,
} as const;

// Deliberately loose: one @, something either side, a dot in the domain, no whitespace.
// The SIS is the authority on addresses; this only catches values that are plainly not one.
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Reads one text field of a row: the trimmed value, or undefined (pushing a problem if it is wrong). */
type TextField = (
  source: Record<string, unknown>,
  field: string,
  max: number,
  problems: Problem[],
) => string | undefined;

/** Whether a field was not sent: absent or null ('missing'), or blank after trimming ('empty'). */
function unsent(value: unknown): 'missing' | 'empty' | undefined {
  if (value === undefined || value === null) return 'missing';
  if (typeof value === 'string' && value.trim() === '') return 'empty';
  return undefined;
}

/** A required text field: sent, then as checkedText. */
const requiredText: TextField = (source, field, max, problems) => {
  const value = source[field];
  const absent = unsent(value);
  if (absent) {
    problems.push({ code: 'missing_field', field, message: `the ${fieldWords(field)} is ${absent}` });
    return undefined;
  }
  return checkedText(value, field, max, problems);
};

/** A present value that must be storable text of at most `max` characters; trimmed. */
function checkedText(value: unknown, field: string, max: number, problems: Problem[]): string | undefined {
  if (typeof value !== 'string') {
    problems.push({
      code: 'invalid_field',
      field,
      message: `the ${fieldWords(field)} must be text (got ${describe(value)})`,
    });
    return undefined;
  }
  const trimmed = value.trim();
  if (!isStorableText(trimmed)) {
    problems.push({
      code: 'invalid_field',
      field,
      message: `the ${fieldWords(field)} contains a NUL character or invalid Unicode`,
    });
    return undefined;
  }
  if (trimmed.length > max) {
    problems.push({
      code: 'invalid_field',
      field,
      message: `the ${fieldWords(field)} is longer than ${max} characters`,
    });
    return undefined;
  }
  return trimmed;
}

/** An optional text field: absent, null or blank means "not sent"; otherwise like requiredText. */
const optionalText: TextField = (source, field, max, problems) => {
  const value = source[field];
  return unsent(value) ? undefined : checkedText(value, field, max, problems);
};

/** true/false, "true"/"false" (any case, surrounding spaces ignored); absent or null: not sent. */
export function parseFirstInFamily(value: unknown): { ok: true; value?: boolean } | { ok: false } {
  if (value === undefined || value === null) return { ok: true };
  if (typeof value === 'boolean') return { ok: true, value };
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return { ok: true, value: true };
    if (text === 'false') return { ok: true, value: false };
  }
  return { ok: false };
}

/** A real calendar date written yyyy-mm-dd, years 1900 to 2999; anything else is undefined. */
export function parseStartDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = datePattern.exec(value.trim());
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1900 || year > 2999) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return undefined;
  }
  return match[0];
}

function shortJson(value: unknown, max = 40): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A value echoed back to the client: strings as they are, anything else as JSON; cut short. */
function echo(value: unknown, max = 100): string {
  const text = typeof value === 'string' ? value : shortJson(value, max);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A key as sent: trimmed storable text within its limit, else null (never an error here). */
function sentKey(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed !== '' && trimmed.length <= max && isStorableText(trimmed) ? trimmed : null;
}

/** The keys an element of `students` was sent with (see RowKeys). */
export function rowKeys(input: unknown): RowKeys {
  const source = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
  const { email, student_id_ext } = source as Record<string, unknown>;
  return {
    email: sentKey(email, LIMITS.email),
    student_id_ext: sentKey(student_id_ext, LIMITS.student_id_ext),
  };
}

/** Validates one element of `students`; `row` is its 0-based position. */
export function validateRow(input: unknown, row: number): RowResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      error: rowError(row, rowKeys(input), [
        { code: 'invalid_row', message: `the row must be an object (got ${describe(input)})` },
      ]),
    };
  }
  const source = input as Record<string, unknown>;
  const problems: Problem[] = [];

  const email = requiredText(source, 'email', LIMITS.email, problems);
  if (email !== undefined && !emailPattern.test(email)) {
    problems.push({
      code: 'invalid_field',
      field: 'email',
      message: `${shortJson(email)} is not an email address`,
    });
  }
  const studentIdExt = requiredText(source, 'student_id_ext', LIMITS.student_id_ext, problems);
  const firstName = optionalText(source, 'first_name', LIMITS.name, problems);
  const lastName = optionalText(source, 'last_name', LIMITS.name, problems);
  const programCode = optionalText(source, 'program_code', LIMITS.program_code, problems);
  const campusName = optionalText(source, 'campus_name', LIMITS.campus, problems);
  const campusCode = optionalText(source, 'campus_code', LIMITS.campus, problems);

  const firstInFamily = parseFirstInFamily(source.first_in_family);
  if (!firstInFamily.ok) {
    problems.push({
      code: 'invalid_field',
      field: 'first_in_family',
      message: `first in family must be true, false, "true" or "false" (got ${shortJson(source.first_in_family)})`,
    });
  }

  let badDate: BadDate | undefined;
  let startDate: string | undefined;
  if (source.start_date !== undefined && source.start_date !== null && source.start_date !== '') {
    startDate = parseStartDate(source.start_date);
    if (startDate === undefined) badDate = { row, value: echo(source.start_date) };
  }

  if (problems.length > 0) {
    return { ok: false, error: rowError(row, rowKeys(source), problems), badDate };
  }
  const result: RosterRow = { row, email: email as string, student_id_ext: studentIdExt as string };
  if (firstName !== undefined) result.first_name = firstName;
  if (lastName !== undefined) result.last_name = lastName;
  if (programCode !== undefined) result.program_code = programCode;
  if (campusName !== undefined) result.campus_name = campusName;
  if (campusCode !== undefined) result.campus_code = campusCode;
  if (firstInFamily.ok && firstInFamily.value !== undefined) result.first_in_family = firstInFamily.value;
  if (startDate !== undefined) result.start_date = startDate;
  return { ok: true, row: result, badDate };
}
