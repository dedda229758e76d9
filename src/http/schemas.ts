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

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });

/** A time stamp: a Date in code, ISO 8601 UTC on the wire. */
export const DateTime = (description?: string) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description });
