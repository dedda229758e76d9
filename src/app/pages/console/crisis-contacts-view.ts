// What the crisis contacts page shows and sends, by pure functions: the saved contacts as rows
// of the form (with one blank row to add to), the rows of a posted form, the contacts those rows
// make (a blank or ticked-for-removal row is left out), and the domain's refusal of
// `contacts[i].field` placed next to that field of the row it came from. Every problem of every
// row is shown at once, as a sentence about the field as the form labels it.
import {
  type ContactProblem,
  type CrisisContact,
  MAX_CRISIS_CONTACTS,
} from '../../../domain/students/crisis-contacts.ts';
import type { FormErrors } from './forms.ts';
import { text } from './forms.ts';

export const FIELDS = ['name', 'phone', 'url', 'hours', 'description'] as const;
type Field = (typeof FIELDS)[number];
export type Row = Record<Field, string>;
const LABELS: Record<Field, string> = {
  name: 'name',
  phone: 'phone number',
  url: 'web address',
  hours: 'hours',
  description: 'description',
};

export const blank = (): Row => ({ name: '', phone: '', url: '', hours: '', description: '' });
const isBlank = (row: Row) => FIELDS.every((field) => row[field] === '');

/** The page: the rows of the form, and which of them hold a saved contact. */
export function crisisContactsView(rows: Row[], extra: { removed?: boolean[]; saved?: boolean[] } = {}) {
  return {
    title: 'Crisis contacts',
    rows,
    max: MAX_CRISIS_CONTACTS,
    errors: {} as Record<string, string>,
    removed: extra.removed ?? [],
    saved: extra.saved ?? [],
  };
}

/** The saved contacts as rows, plus one blank row to add a contact with while there is room. */
export function savedRows(contacts: readonly CrisisContact[]): { rows: Row[]; saved: boolean[] } {
  const rows = contacts.map((contact) => {
    const row = blank();
    for (const field of FIELDS) row[field] = contact[field] ?? '';
    return row;
  });
  const saved = rows.map(() => true);
  if (rows.length < MAX_CRISIS_CONTACTS) rows.push(blank());
  return { rows, saved };
}

/** The rows of a posted form, as typed (the `rows` field says how many the form had). */
export function postedRows(body: unknown): { rows: Row[]; removed: boolean[]; saved: boolean[] } {
  const count = Math.min(Math.max(Number.parseInt(text(body, 'rows'), 10) || 0, 0), MAX_CRISIS_CONTACTS);
  const rows: Row[] = [];
  const removed: boolean[] = [];
  const saved: boolean[] = [];
  for (let i = 0; i < count; i++) {
    const row = blank();
    for (const field of FIELDS) row[field] = text(body, `${field}_${i}`);
    rows.push(row);
    removed.push(text(body, `remove_${i}`) === 'yes');
    saved.push(text(body, `saved_${i}`) === 'yes');
  }
  return { rows, removed, saved };
}

/**
 * The contacts the rows make, in order, and for each the index of the row it came from (so the
 * domain's `contacts[i]` finds its row again). An empty field is no value.
 */
export function contactsOf(rows: readonly Row[], removed: readonly boolean[]) {
  const kept = rows.map((row, i) => ({ row, i })).filter(({ row, i }) => !removed[i] && !isBlank(row));
  return {
    rowOf: kept.map(({ i }) => i),
    contacts: kept.map(({ row }) => Object.fromEntries(FIELDS.map((f) => [f, row[f] || null]))),
  };
}

/**
 * A refusal naming `contacts[i].field`, next to that field of its row (`field_row`), its detail
 * speaking of the field rather than of the list sent; anything else above the form.
 */
export function placeRefusal(
  problem: { error: string; field?: string; detail?: string },
  rowOf: readonly number[],
): FormErrors {
  const at = /^contacts\[(\d+)\](?:\.(\w+))?$/.exec(problem.field ?? '');
  const row = at ? rowOf[Number(at[1])] : undefined;
  if (!at || row === undefined) {
    return { errors: {}, formError: String(problem.detail ?? 'The contacts were refused.') };
  }
  const field = (FIELDS as readonly string[]).includes(at[2]) ? (at[2] as Field) : 'name';
  const detail = (problem.detail ?? 'this value was refused').replace(
    /contacts\[\d+\](\.\w+)?/g,
    (_all, sub?: string) => (sub ? `the ${LABELS[sub.slice(1) as Field] ?? sub.slice(1)}` : 'the contact'),
  );
  return {
    errors: { [`${field}_${row}`]: `${detail.charAt(0).toUpperCase()}${detail.slice(1)}` },
  };
}

const TITLES: Record<Field, string> = {
  name: 'Name',
  phone: 'Phone number',
  url: 'Web address',
  hours: 'Hours',
  description: 'Description',
};

/** The sentence for one problem of a contact, about the field as the form labels it. */
export function problemSentence(problem: ContactProblem): string {
  const title = TITLES[problem.field as Field] ?? 'The contact';
  switch (problem.kind) {
    case 'required':
      return 'Enter a name';
    case 'not_text':
      return `${title} must be ${problem.max} characters or fewer`;
    case 'invisible':
      return `${title} must not hold invisible or control characters (such as a line break, a zero-width space or a direction mark)`;
    case 'phone':
      return 'Enter a phone number of digits, spaces and + ( ) - . (at least three digits)';
    case 'url':
      return 'Enter a web address starting with https:// or http://';
    case 'unreachable':
      return 'Enter a phone number or a web address to reach them';
    default:
      return `${title} is not valid`;
  }
}

/**
 * Every problem of the contacts (the domain's `contactProblems`), each next to its field of the
 * row it came from (`field_row`); the first of a field wins.
 */
export function problemErrors(problems: readonly ContactProblem[], rowOf: readonly number[]): FormErrors {
  const errors: Record<string, string> = {};
  let formError: string | undefined;
  for (const problem of problems) {
    const row = rowOf[problem.index];
    const field = problem.field as Field;
    if (row === undefined || !(FIELDS as readonly string[]).includes(field)) {
      formError ??= problemSentence(problem);
      continue;
    }
    errors[`${field}_${row}`] ??= problemSentence(problem);
  }
  return formError === undefined ? { errors } : { errors, formError };
}
