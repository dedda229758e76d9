// How a failure reads as a stable code: framework errors (parsing, limits, validation), database
// refusals of a value and an unreachable database mapped once, for every surface. The JSON API
// writes the answer as the flat error body (api/errors.ts), the pages as an error page.
import type { FastifyError } from 'fastify';
import { isDatabaseUnavailable, pgErrorCode } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';

/** SQLSTATEs of values the database refuses to store or compare: bad input, not a server fault. */
const refusedValue: Record<string, string> = {
  '22021': 'a text value contains a NUL character or invalid Unicode',
  '22P05': 'a text value contains a NUL character or invalid Unicode',
  '22P02': 'a value has the wrong form',
  '22003': 'a number is out of range',
  '22007': 'a date or time is not valid',
  '22008': 'a date or time is out of range',
  '22001': 'a text value is too long',
  '22009': 'a time zone offset is out of range',
};

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Turns a schema validation failure into `missing_field` or `invalid_field` naming the field. */
function validationError(error: FastifyError): ApiError {
  const issues = (error.validation ?? []) as ValidationIssue[];
  const first = issues[0] ?? {};
  const pointer = (first.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const params = first.params ?? {};
  if (first.keyword === 'required') {
    const missing = (params.requiredProperties as string[] | undefined)?.[0] ?? params.missingProperty;
    const field = [pointer, missing].filter(Boolean).join('.');
    return new ApiError('missing_field', { field, detail: `${field} is required` });
  }
  // A field is named by its name alone wherever it was sent (`offset`, not `querystring.offset`):
  // one endpoint never takes the same name in two places.
  const where =
    pointer || (error.validationContext === 'body' ? 'body' : (error.validationContext ?? 'request'));
  // The storable-text patterns of src/app/api/schemas.ts: say what they mean, not the regex.
  const storable = first.keyword === 'pattern' && String(params.pattern ?? '').includes('\\u0000');
  // The display-name pattern (src/lib/schema.ts): control and format characters.
  const displayName = first.keyword === 'pattern' && String(params.pattern ?? '').includes('\\p{Cf}');
  // A choice among literals fails once per literal: name them all.
  const allowed = issues
    .filter((issue) => issue.keyword === 'const' && issue.instancePath === first.instancePath)
    .map((issue) => JSON.stringify(issue.params?.allowedValue));
  let detail = `${where} ${first.message ?? 'is invalid'}`.trim();
  if (displayName) {
    detail = `${where} must not be blank nor hold control or invisible formatting characters (a line break, a zero-width space, a soft hyphen, a direction mark...): names must read as they are`;
  } else if (storable) {
    detail = `${where} must be non-blank where required and contain no NUL character or lone UTF-16 surrogate`;
  } else if (allowed.length > 0) {
    detail = `${where} must be one of ${allowed.join(', ')}`;
  }
  return new ApiError('invalid_field', { field: where, detail });
}

/** Seconds a client should wait before retrying while the database is unreachable; the pool reconnects on its own. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * Maps framework errors (parsing, limits) and an unreachable database (503) onto stable
 * codes; anything unknown is a 500 without internals.
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const e = error as FastifyError;
  if (e?.validation) return validationError(e);
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('empty_body', { detail: 'the request body is empty; send a JSON object' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('malformed_json', { detail: 'the request body is not valid JSON' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', {
        detail: 'the request body is larger than this endpoint accepts',
      });
    case 'FST_CSRF_MISSING_SECRET':
    case 'FST_CSRF_INVALID_TOKEN':
      return new ApiError('csrf_invalid', {
        detail:
          'a request made with a session cookie needs the CSRF token (x-csrf-token header or _csrf field)',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', { detail: 'Content-Length does not match the body' });
  }
  if (e instanceof SyntaxError || (e?.statusCode === 400 && /JSON/i.test(e.message ?? ''))) {
    return new ApiError('malformed_json', { detail: 'the request body is not valid JSON' });
  }
  const sqlState = pgErrorCode(error);
  if (sqlState && sqlState in refusedValue) {
    // Validation should have caught it; the database refusing a value is still the client's input.
    return new ApiError('invalid_request', { detail: refusedValue[sqlState] });
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('database_unavailable', {
      detail: 'the database cannot be reached at the moment; retry after the time given in Retry-After',
    });
  }
  if (e?.statusCode === 429) return new ApiError('rate_limited');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('invalid_request', { detail: e.message }, e.statusCode);
  }
  return undefined;
}
