// Form input checked against the same TypeBox schema the API validates its body with, so a page
// and the API accept exactly the same values. A person reads every field's problem at once, as a
// sentence about the field as the form labels it ("Enter a name", "Name must be 200 characters or
// fewer"), never a schema path or a pattern.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ApiError } from '../../errors.ts';
import { checkUrlSyntax, type OutboundPolicy } from '../../lib/outbound-url.ts';

/** How a form names a field, and what it says when the field's value has the wrong form. */
export interface FieldText {
  /** The field's label as the form shows it ("Name", "Start date"). */
  label: string;
  /** What to say when the field is empty but required; default "Enter a <label, lower case>" (enterText). */
  required?: string;
  /** What to say when the value has the wrong form (a pattern or format); default "<Label> is not valid". */
  hint?: string;
}

export type FormCheck<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

const compiled = new WeakMap<TSchema, ReturnType<typeof Compile>>();

function validatorOf(schema: TSchema) {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

/**
 * "Enter …" for a field as labelled: with its article ("Enter a name", "Enter an email", "Enter
 * a base URL"), none for a plural or a label that brings its own ("Enter email domains", "Enter
 * the campus that stays"). An acronym keeps its capitals and takes the article of its first
 * letter's name ("a URL", "an SMS").
 */
export function enterText(label: string): string {
  const first = label.split(/[\s(]/, 1)[0];
  const acronym = first.length > 1 && first === first.toUpperCase() && /[A-Z]/.test(first);
  const words = acronym ? label : label.charAt(0).toLowerCase() + label.slice(1);
  const word = first.toLowerCase();
  const ownArticle = /^(the|a|an|which|your|this|these|each|every|at|after|from|to)$/.test(word);
  const noun = label.split('(')[0].trim().split(/\s+/).pop()?.toLowerCase() ?? '';
  const plural = noun.length > 3 && noun.endsWith('s') && !/(ss|us|is)$/.test(noun);
  if (ownArticle || plural) return `Enter ${words}`;
  const vowelSound = acronym ? /^[AEFHILMNORSX]/.test(first) : /^[aeio]|^u(?!ni|se|sa|su|ro)/.test(word);
  return `Enter ${vowelSound ? 'an' : 'a'} ${words}`;
}

/** The sentence for one field's first problem. */
export function fieldMessage(text: FieldText, error: SchemaError, value: unknown): string {
  const label = text.label;
  const lower = label.charAt(0).toLowerCase() + label.slice(1);
  const limit = error.params.limit;
  const empty = value === undefined || value === '';
  switch (error.keyword) {
    case 'required':
      return text.required ?? enterText(label);
    case 'minLength':
      return empty || limit === 1
        ? (text.required ?? enterText(label))
        : `${label} must be at least ${limit} characters`;
    case 'maxLength':
      return `${label} must be ${limit} characters or fewer`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${label} must be ${limit} or more`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${label} must be ${limit} or less`;
    case 'minItems':
      return text.required ?? `Choose at least ${limit} ${lower}`;
    case 'maxItems':
      return `Choose at most ${limit} ${lower}`;
    case 'enum':
    case 'const':
    case 'anyOf':
      return text.hint ?? `Choose one of the ${lower} options`;
    case 'pattern':
      // The display-name pattern (src/lib/schema.ts): invisible and control characters.
      if (!String(error.params.pattern ?? '').includes('\\p{Cf}'))
        return text.hint ?? `${label} is not valid`;
      if (empty || String(value).trim() === '') return text.required ?? enterText(label);
      return `${label} must not hold invisible or control characters (such as a line break, a zero-width space, a soft hyphen or a direction mark); type it again without them`;
    case 'format':
      if (error.params.format === 'date') return text.hint ?? `Enter ${lower} as a date, YYYY-MM-DD`;
      return text.hint ?? `${label} is not valid`;
    default:
      return text.hint ?? `${label} is not valid`;
  }
}

/**
 * Checks form values against a schema. Every field with a problem gets its message (the first
 * problem of each field, or its length when it is too long); fields the form does not name are
 * reported under `_form`.
 */
export function checkForm<T extends TSchema>(
  schema: T,
  values: Record<string, unknown>,
  fields: Record<string, FieldText>,
): FormCheck<Static<T>> {
  const validator = validatorOf(schema);
  if (validator.Check(values)) return { ok: true, value: values as Static<T> };
  const errors: Record<string, string> = {};
  for (const error of validator.Errors(values) as Iterable<SchemaError>) {
    const names =
      error.keyword === 'required'
        ? ((error.params.requiredProperties as string[] | undefined) ?? [])
        : [error.instancePath.split('/')[1] ?? ''];
    // A value too long says so, whatever else is wrong with it ("Slug must be 63 characters or
    // fewer" rather than the slug's pattern): shortening it is the first thing to do.
    const overrides = error.keyword === 'maxLength' || error.keyword === 'maxItems';
    for (const name of names) {
      const key = name in fields ? name : '_form';
      if (errors[key] && !(overrides && key !== '_form' && error.instancePath === `/${name}`)) continue;
      const text = fields[name] ?? { label: name || 'The form' };
      errors[key] = fieldMessage(text, error, values[name]);
    }
  }
  return { ok: false, errors };
}

/**
 * A form check joined with the domain's own checks of single fields (a start date that exists in
 * the calendar, a time zone Node knows), so those problems show with the schema's, all at once
 * rather than after them. A field the domain refuses gets its `hint` (unless the schema already
 * named a problem of it); anything but a refusal is rethrown.
 */
export function withFieldChecks<T>(
  checked: FormCheck<T>,
  checks: Record<string, () => unknown>,
  fields: Record<string, FieldText>,
): FormCheck<T> {
  const errors: Record<string, string> = checked.ok ? {} : { ...checked.errors };
  for (const [name, check] of Object.entries(checks)) {
    if (errors[name]) continue;
    try {
      check();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      errors[name] = fields[name]?.hint ?? `${fields[name]?.label ?? name} is not valid`;
    }
  }
  return Object.keys(errors).length === 0 ? checked : { ok: false, errors };
}

/**
 * A form check joined with the outbound URL guard's checks that need no DNS (the scheme, a
 * private or loopback address written in the URL, credentials), so a refused URL shows with the
 * other fields' problems rather than after them. A name that resolves to a private address is
 * still refused by the domain when the rest is right (it resolves the name once, then).
 */
export function withUrlChecks<T>(
  checked: FormCheck<T>,
  urls: Record<string, unknown>,
  policy: OutboundPolicy,
): FormCheck<T> {
  if (checked.ok) return checked;
  const errors = { ...checked.errors };
  for (const [name, value] of Object.entries(urls)) {
    if (errors[name] || typeof value !== 'string' || value === '') continue;
    // webcal://, as calendar pages link their feeds, is read as https (as the calendar domain does).
    const verdict = checkUrlSyntax(value.replace(/^webcals?:\/\//i, 'https://'), policy);
    if (!verdict.ok) errors[name] = verdict.reason.charAt(0).toUpperCase() + verdict.reason.slice(1);
  }
  return { ok: false, errors };
}

/** A form check with its URL fields (named in `urls`) checked as withUrlChecks does. */
export function checkFormWithUrls<T extends TSchema>(
  schema: T,
  values: Record<string, unknown>,
  fields: Record<string, FieldText>,
  urls: Record<string, unknown>,
  policy: OutboundPolicy,
): FormCheck<Static<T>> {
  return withUrlChecks(checkForm(schema, values, fields), urls, policy);
}
