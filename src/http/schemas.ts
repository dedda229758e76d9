// Schemas shared by several routes: the error body, pagination, path parameters.
import { Type } from 'typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Stable snake_case error code; branch on this.' }),
    detail: Type.Optional(Type.String({ description: 'Human-readable explanation; may be reworded.' })),
    field: Type.Optional(Type.String({ description: 'The request field at fault, dotted.' })),
    max: Type.Optional(Type.Integer({ description: 'The limit that was exceeded.' })),
  },
  { additionalProperties: true, description: 'Error body: {"error": code, ...extra}' },
);

/** Standard error responses, added to a route's `response` map. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<S, typeof ErrorBody>;
}

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
});

export function page(query: { limit?: number; offset?: number }) {
  return { limit: query.limit ?? 100, offset: query.offset ?? 0 };
}

export const SlugParams = Type.Object({
  slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'Institution slug' }),
});

/**
 * Text PostgreSQL can store: no NUL character and no lone UTF-16 surrogate. Route patterns run
 * with the `u` flag, so a lone surrogate is one code point in the excluded range while a
 * surrogate pair (an emoji) is a single code point outside it.
 */
export const storableTextPattern = '^[^\\u0000\\uD800-\\uDFFF]*$';
/** Storable text that also holds at least one non-blank character. */
export const nonBlankTextPattern = '^(?=[\\s\\S]*\\S)[^\\u0000\\uD800-\\uDFFF]*$';

/** A string field of an admin request: storable text (see above) within the given lengths. */
export const Text = (
  options: { minLength?: number; maxLength?: number; nonBlank?: boolean; description?: string } = {},
) => {
  const { nonBlank, ...rest } = options;
  return Type.String({ ...rest, pattern: nonBlank ? nonBlankTextPattern : storableTextPattern });
};

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });

/** A time stamp: a Date in code, ISO 8601 UTC on the wire. */
export const DateTime = (description?: string) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description });

/** Who may call an admin endpoint: the operator token, or a signed-in session (roles permitting). */
export const adminSecurity: { [scheme: string]: string[] }[] = [{ operatorToken: [] }, { sessionCookie: [] }];
