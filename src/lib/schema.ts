// Building blocks of schemas (TypeBox): nullable values, fixed choices, storable text,
// identifiers and times. The domain defines the shapes it returns with them, so that the API's
// response schemas and the pages' view models come from the same definitions.
import { type Static, type TSchema, Type } from 'typebox';

/**
 * A schema or null (the API writes absent values as null, never leaves them out). Written as a
 * JSON Schema type list (`"type": ["string", "null"]`) rather than anyOf: the response
 * serializer writes a type list directly but tries each branch of an anyOf in turn, which made
 * it five times slower on the listings' rows. Validation and the OpenAPI 3.1 document read both.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown[] };
  if (typeof type !== 'string') return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
  return Type.Unsafe<Static<T> | null>({
    ...schema,
    type: [type, 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  });
};

/** One of a fixed list of strings (the list lives with the rule that owns it). */
export const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

/**
 * Text PostgreSQL can store: no NUL character and no lone UTF-16 surrogate. Route patterns run
 * with the `u` flag, so a lone surrogate is one code point in the excluded range while a
 * surrogate pair (an emoji) is a single code point outside it.
 */
export const storableTextPattern = '^[^\\u0000\\uD800-\\uDFFF]*$';
/** Storable text that also holds at least one non-blank character. */
const nonBlankTextPattern = '^(?=[\\s\\S]*\\S)[^\\u0000\\uD800-\\uDFFF]*$';

/** A string field of an admin request: storable text (see above) within the given lengths. */
export const Text = (
  options: { minLength?: number; maxLength?: number; nonBlank?: boolean; description?: string } = {},
) => {
  const { nonBlank, ...rest } = options;
  return Type.String({ ...rest, pattern: nonBlank ? nonBlankTextPattern : storableTextPattern });
};

/**
 * The client credentials an OAuth server issued (an identity provider's, a OneRoster server's):
 * the id, and the secret, which is sealed when stored and may be omitted later to keep it;
 * `secretDescription` says when it must be sent.
 */
export const ClientCredentials = (secretDescription: string) => ({
  client_id: Text({ minLength: 1, maxLength: 500, nonBlank: true }),
  client_secret: Type.Optional(
    Text({ minLength: 1, maxLength: 2000, nonBlank: true, description: secretDescription }),
  ),
});

/**
 * A display name (docs/display-names.md): storable, non-blank, and without control characters
 * (Cc, and the line and paragraph separators) or format characters (Cf: soft hyphen, zero-width
 * space, direction marks and embeddings, tags...), which make two different names look the same
 * or a name show as something else. The zero-width non-joiner and joiner (U+200C, U+200D) stay
 * allowed: Persian and Indic names are spelt with them, and emoji sequences use the joiner.
 */
/** The characters of a display name, as a pattern (run with the `u` flag). */
export const displayNameCharacters = '(?:[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\uD800-\\uDFFF]|[\\u200C\\u200D])*';

/** Whether text holds only what a display name may (blank or not): see DisplayName. */
export function isDisplayText(value: string): boolean {
  return new RegExp(`^${displayNameCharacters}$`, 'u').test(value);
}

export const DisplayName = (
  options: { minLength?: number; maxLength?: number; description?: string; nonBlank?: boolean } = {},
) => {
  const { nonBlank = true, ...rest } = options;
  return Type.String({ ...rest, pattern: `^${nonBlank ? '(?=[\\s\\S]*\\S)' : ''}${displayNameCharacters}$` });
};

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });

/** A time stamp: a Date in code, ISO 8601 UTC on the wire. */
export const DateTime = (description?: string) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description });
