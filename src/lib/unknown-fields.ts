// Refusing top-level fields an endpoint does not know. A misspelt option must not be ignored:
// `{"dryRun": true}` on a feed that reads `dry_run` would otherwise perform a real push. The
// three SIS and help-desk feeds refuse them with this one check.
import { ApiError, type ErrorCode } from '../errors.ts';
import { closestName } from './suggest.ts';

/** The first key of `body` that is not in `known`, with the closest known name if one is close. */
export function findUnknownField(
  body: unknown,
  known: readonly string[],
): { field: string; suggestion?: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const field = Object.keys(body).find((key) => !known.includes(key));
  if (field === undefined) return undefined;
  const suggestion = closestName(field, known);
  return suggestion === undefined ? { field } : { field, suggestion };
}

/**
 * Throws 400 (`unknown_field` unless the endpoint has its own code) naming the first unknown
 * top-level field of `body`, with `suggestion` when a known field is close. Bodies that are not
 * objects are left to schema validation.
 */
export function refuseUnknownFields(
  body: unknown,
  known: readonly string[],
  code: ErrorCode = 'unknown_field',
): void {
  const unknown = findUnknownField(body, known);
  if (!unknown) return;
  const name = JSON.stringify(
    unknown.field.length > 100 ? `${unknown.field.slice(0, 97)}...` : unknown.field,
  );
  const detail = unknown.suggestion
    ? `${name} is not a field of this endpoint; did you mean ${unknown.suggestion}?`
    : `${name} is not a field of this endpoint; its fields are ${known.join(', ')}`;
  throw new ApiError(code, {
    field: unknown.field,
    ...(unknown.suggestion ? { suggestion: unknown.suggestion } : {}),
    detail,
  });
}
