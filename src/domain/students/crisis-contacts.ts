// An institution's crisis contacts: who a student in crisis can reach at once (a helpline, the
// campus security desk, an out-of-hours service). Admins replace the list as a whole; the
// student pages show it on the crisis form and on every crisis request's page.
//
// Validated here, field by field, so a bad contact is a 400 naming the field
// (`contacts[2].url`) whatever shape the body had. Cost: reading is one indexed SELECT; a
// replace is one transaction of a DELETE and one INSERT of every row (never a query per row).

import { type Static, Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { isDisplayText } from '../../lib/schema.ts';
import { isStorableText } from '../../lib/text.ts';
import type { Deps } from '../deps.ts';
import { replaceStoredContacts } from './queries.ts';

export const MAX_CRISIS_CONTACTS = 10;

const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** A crisis contact as the admin API answers and the console and the student pages show it. */
export const CrisisContact = Type.Object({
  name: Type.String({ description: 'Who to contact (1 to 200 characters)', examples: ['Campus security'] }),
  phone: OrNull(Type.String({ description: 'A phone number (digits, spaces, + ( ) - .; up to 50)' })),
  url: OrNull(Type.String({ description: 'An https:// or http:// address (up to 500)' })),
  hours: OrNull(Type.String({ description: 'When they answer, as text (up to 200)', examples: ['24/7'] })),
  description: OrNull(Type.String({ description: 'What they help with (up to 1000)' })),
});
export type CrisisContact = Static<typeof CrisisContact>;

export const CrisisContactList = Type.Object({ contacts: Type.Array(CrisisContact) });

/** What replacing the list takes: the envelope only; each contact is checked here, row by row. */
export const CrisisContactsBody = Type.Object({ contacts: Type.Array(Type.Unknown()) });

const limits = { name: 200, phone: 50, url: 500, hours: 200, description: 1000 } as const;
type Field = keyof typeof limits;
const fields = Object.keys(limits) as Field[];

// Digits, spaces and the usual phone punctuation; at least three digits.
const phonePattern = /^(?=(?:\D*\d){3})[0-9+()\-. ]+$/;

const invalid = (field: string, detail: string) => new ApiError('invalid_field', { field, detail });

/**
 * One problem of a contact, as data: the console words it as a sentence about the field as its
 * form labels it; the API sends the first one as an error (`problemError`).
 */
export interface ContactProblem {
  index: number;
  /** The field at fault; null: the contact as a whole (not an object). */
  field: string | null;
  kind:
    | 'not_object'
    | 'unknown_field'
    | 'required'
    | 'not_text'
    | 'invisible'
    | 'phone'
    | 'url'
    | 'unreachable';
  /** The field's most characters (not_text). */
  max?: number;
}

/** The API's error for a problem: `invalid_field` (or `unknown_field`) naming `contacts[i].field`. */
export function problemError(problem: ContactProblem): ApiError {
  const at = (field: string | null) => `contacts[${problem.index}]${field ? `.${field}` : ''}`;
  const where = at(problem.field);
  switch (problem.kind) {
    case 'not_object':
      return invalid(where, `${where} must be an object {name, phone?, url?, hours?, description?}`);
    case 'unknown_field':
      return new ApiError('unknown_field', { field: where, detail: `a contact has ${fields.join(', ')}` });
    case 'required':
      return invalid(where, `${where} is required`);
    case 'not_text':
      return invalid(where, `${where} must be non-blank text of at most ${problem.max} characters`);
    case 'invisible':
      return invalid(
        where,
        `${where} must not hold control or invisible formatting characters (docs/display-names.md)`,
      );
    case 'phone':
      return invalid(where, `${where} must be a phone number: digits, spaces, + ( ) - .`);
    case 'url':
      return invalid(where, `${where} must be an https:// or http:// address`);
    case 'unreachable':
      return invalid(where, `${at(null)} needs a phone number or a web address to reach them`);
  }
}

/** Every problem of one contact of the list, in the order the API reports the first. */
export function contactProblems(value: unknown, index: number): ContactProblem[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ index, field: null, kind: 'not_object' }];
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !fields.includes(key as Field));
  if (unknown !== undefined) return [{ index, field: unknown.slice(0, 100), kind: 'unknown_field' }];
  const problems: ContactProblem[] = [];
  const given = (field: Field) => {
    const raw = record[field];
    return !(raw === undefined || raw === null || (field !== 'name' && raw === ''));
  };
  const good = new Set<Field>();
  for (const field of fields) {
    const raw = record[field];
    if (!given(field)) {
      if (field === 'name') problems.push({ index, field, kind: 'required' });
      continue;
    }
    if (typeof raw !== 'string' || !isStorableText(raw) || raw.trim() === '' || raw.length > limits[field]) {
      problems.push({ index, field, kind: 'not_text', max: limits[field] });
      continue;
    }
    // The contact's name is a display name: shown to students as typed (docs/display-names.md).
    if (field === 'name' && !isDisplayText(raw)) {
      problems.push({ index, field, kind: 'invisible' });
      continue;
    }
    good.add(field);
  }
  const text = (field: Field) => (record[field] as string).trim();
  if (good.has('phone') && !phonePattern.test(text('phone')))
    problems.push({ index, field: 'phone', kind: 'phone' });
  if (good.has('url') && !isWebAddress(text('url'))) problems.push({ index, field: 'url', kind: 'url' });
  if (!given('phone') && !given('url')) problems.push({ index, field: 'phone', kind: 'unreachable' });
  return problems;
}

/** Checks one contact of the list; returns it with absent optional fields as null. */
function checkContact(value: unknown, index: number): CrisisContact {
  const [first] = contactProblems(value, index);
  if (first) throw problemError(first);
  const record = value as Record<string, unknown>;
  const out: Record<string, string | null> = {};
  for (const field of fields) {
    const raw = record[field];
    out[field] = typeof raw === 'string' && raw !== '' ? raw.trim() : null;
  }
  return out as unknown as CrisisContact;
}

function isWebAddress(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Validates a whole list (the body of PUT .../crisis-contacts). */
export function checkContacts(value: unknown): CrisisContact[] {
  if (!Array.isArray(value)) {
    throw invalid('contacts', 'contacts must be an array of {name, phone?, url?, hours?, description?}');
  }
  if (value.length > MAX_CRISIS_CONTACTS) {
    throw new ApiError('invalid_field', {
      field: 'contacts',
      max: MAX_CRISIS_CONTACTS,
      detail: `at most ${MAX_CRISIS_CONTACTS} crisis contacts`,
    });
  }
  return value.map(checkContact);
}

export { listCrisisContacts } from './queries.ts';

/** Replaces the institution's list with `value` once it is valid; returns the stored list. */
export async function replaceCrisisContacts(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  value: unknown,
): Promise<CrisisContact[]> {
  const contacts = checkContacts(value);
  const now = clock.now();
  await db.transaction((tx) => replaceStoredContacts(tx, institutionId, contacts, now));
  return contacts;
}
