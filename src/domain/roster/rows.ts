// Pure per-row rules of the roster sync (spec 2.1): one element of `students`, of any JSON
// shape, becomes either a normalised row or a message saying everything that is wrong
// with it. Nothing here touches the database; matching happens in sync.ts.

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

export type RowResult =
  | { ok: true; row: RosterRow; badDate?: BadDate }
  | { ok: false; error: { row: number; message: string }; badDate?: BadDate };

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

/**
 * A required text field: present, a string, not blank after trimming, storable, not too long.
 * Returns the trimmed value or pushes a problem.
 */
function requiredText(
  source: Record<string, unknown>,
  field: string,
  max: number,
  problems: string[],
): string | undefined {
  const value = source[field];
  if (value === undefined || value === null) {
    problems.push(`${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.push(`${field} must be a string (got ${describe(value)})`);
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    problems.push(`${field} is required (got an empty string)`);
    return undefined;
  }
  if (!isStorableText(trimmed)) {
    problems.push(`${field} contains a NUL character or invalid Unicode`);
    return undefined;
  }
  if (trimmed.length > max) {
    problems.push(`${field} is longer than ${max} characters`);
    return undefined;
  }
  return trimmed;
}

/** An optional text field: absent, null or blank means "not sent"; otherwise like requiredText. */
function optionalText(
  source: Record<string, unknown>,
  field: string,
  max: number,
  problems: string[],
): string | undefined {
  const value = source[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    problems.push(`${field} must be a string (got ${describe(value)})`);
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (!isStorableText(trimmed)) {
    problems.push(`${field} contains a NUL character or invalid Unicode`);
    return undefined;
  }
  if (trimmed.length > max) {
    problems.push(`${field} is longer than ${max} characters`);
    return undefined;
  }
  return trimmed;
}

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

/** Validates one element of `students`; `row` is its 0-based position. */
export function validateRow(input: unknown, row: number): RowResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: { row, message: `row must be an object (got ${describe(input)})` } };
  }
  const source = input as Record<string, unknown>;
  const problems: string[] = [];

  const email = requiredText(source, 'email', LIMITS.email, problems);
  if (email !== undefined && !emailPattern.test(email)) {
    problems.push(`email ${shortJson(email)} is not an email address`);
  }
  const studentIdExt = requiredText(source, 'student_id_ext', LIMITS.student_id_ext, problems);
  const firstName = optionalText(source, 'first_name', LIMITS.name, problems);
  const lastName = optionalText(source, 'last_name', LIMITS.name, problems);
  const programCode = optionalText(source, 'program_code', LIMITS.program_code, problems);
  const campusName = optionalText(source, 'campus_name', LIMITS.campus, problems);
  const campusCode = optionalText(source, 'campus_code', LIMITS.campus, problems);

  const firstInFamily = parseFirstInFamily(source.first_in_family);
  if (!firstInFamily.ok) {
    problems.push(
      `first_in_family must be true, false, "true" or "false" (got ${shortJson(source.first_in_family)})`,
    );
  }

  let badDate: BadDate | undefined;
  let startDate: string | undefined;
  if (source.start_date !== undefined && source.start_date !== null && source.start_date !== '') {
    startDate = parseStartDate(source.start_date);
    if (startDate === undefined) badDate = { row, value: echo(source.start_date) };
  }

  if (problems.length > 0) {
    return { ok: false, error: { row, message: problems.join('; ') }, badDate };
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
