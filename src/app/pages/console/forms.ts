// Form posts: what a field of the form is called, and where the domain's refusal is shown. A
// refusal names the field at fault (`field`, dotted); the page shows its detail (never its code)
// next to that control, or above the form when the field is not one of the form's.
import type { FastifyReply } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ApiError } from '../../../errors.ts';
import { checkForm, type FieldText } from '../form-check.ts';

/** A refusal as the API writes it: its code, and the detail and field it names. */
interface Refusal {
  error: string;
  detail?: unknown;
  field?: unknown;
}

export type FormErrors = {
  /** Messages keyed by form field name. */
  errors: Record<string, string>;
  /** A message for the whole form. */
  formError?: string;
};

export function formErrors(problem: Refusal, fields: readonly string[]): FormErrors {
  // The domain's detail is the sentence; its code is for programs, not for the person reading.
  const message = String(problem.detail ?? 'The request was refused.');
  const field =
    typeof problem.field === 'string' ? problem.field.replace(/^body\.?/, '').split('.')[0] : undefined;
  if (field && fields.includes(field)) return { errors: { [field]: message } };
  return { errors: {}, formError: message };
}

/**
 * A post the domain refused (an ApiError below 500), as the page shows it: next to the field it
 * names, or above the form, with the status the page answers. Anything else is rethrown for the
 * error page.
 */
export function refusalOf(error: unknown, fields: readonly string[]): FormErrors & { status: number } {
  if (!(error instanceof ApiError) || error.status >= 500) throw error;
  const problem: Refusal = { ...error.extra, error: error.code };
  return { ...formErrors(problem, fields), status: error.status };
}

/** A form check's messages (src/app/pages/form-check.ts) as a page shows them: `_form` above the form. */
export function checkErrors(errors: Record<string, string>): FormErrors {
  const { _form, ...fields } = errors;
  return _form === undefined ? { errors: fields } : { errors: fields, formError: _form };
}

/** A posted form field as trimmed text ('' when absent or not text). */
/** A form post as most console forms take it: checked, run, then back to the page with a notice. */
export interface FormPost<T extends TSchema> {
  /** The API's schema of the change, and the form's values read as its input. */
  schema: T;
  values: Record<string, unknown>;
  /** The form's fields: what a message names, and where a refusal naming one is shown. */
  fields: Record<string, FieldText>;
  /** Makes the change with the checked value; a refusal it throws is shown with the form. */
  run: (value: Static<T>) => Promise<unknown>;
  /** The page again with the form's messages (from the check or the refusal), answering `status`. */
  redisplay: (errors: FormErrors, status: number) => unknown;
  /** Where the browser goes after the change: the page, with the notice of it. */
  done: string;
}

/**
 * A form post's course: the values checked against the API's schema (400 with the messages), the
 * change made (a refusal shown next to the field it names), then a 303 to `done`.
 */
export async function submitForm<T extends TSchema>(reply: FastifyReply, post: FormPost<T>) {
  const checked = checkForm(post.schema, post.values, post.fields);
  if (!checked.ok) return post.redisplay(checkErrors(checked.errors), 400);
  try {
    await post.run(checked.value);
  } catch (error) {
    const refused = refusalOf(error, Object.keys(post.fields));
    return post.redisplay(refused, refused.status);
  }
  return reply.redirect(post.done, 303);
}

export function text(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A posted multi-valued field (checkboxes) as a list. */
export function list(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** Whether a confirmation step was answered (the destructive-action pages post `confirmed=yes`). */
export function confirmed(body: unknown): boolean {
  return text(body, 'confirmed') === 'yes';
}

/** Short, readable UTC time for tables ("2026-03-04 15:07 UTC"). */
export function when(value: unknown): string {
  if (!value) return '—';
  const date = new Date(value as string);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The time-zone field of every form that has one: one label, one sentence for a zone not known. */
export const timeZoneField = {
  label: 'Time zone',
  hint: 'Enter a time zone from the list, such as Australia/Sydney or UTC',
};

/** The time zones offered while typing one (any zone Node knows is accepted; the API judges it). */
export const timeZoneChoices: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];
