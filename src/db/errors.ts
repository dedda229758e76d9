// Errors of the database layer that callers branch on, and the codes they read, in a module of
// their own so that a caller (the CLI) can recognise them without loading the database drivers.

/** The embedded database directory is held by another process. */
export class DatabaseInUseError extends Error {}

/** Postgres error codes the services branch on. */
export const PgErrorCode = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
} as const;

export function pgErrorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string')
    return error.code;
  return undefined;
}

/** The constraint (or unique index) a database error names, e.g. which key a 23505 hit. */
export function pgConstraint(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'constraint' in error && typeof error.constraint === 'string')
    return error.constraint;
  return undefined;
}

/** Socket errors of a connection to the database that could not be made or was lost. */
const connectionErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that cannot serve the session: class 08 (connection exception),
 * 57P01-57P03 (terminated by an administrator, crash or restart, not yet accepting
 * connections) and 53300 (too many connections).
 */
const unavailableStates = /^(08...|57P0[1-3]|53300)$/;

/**
 * node-postgres and PGlite report a lost connection or a closed database without a code,
 * only in words: a connection that ended mid-query, a client the pool can no longer use, a
 * connect that timed out, an embedded database already closed.
 */
const unavailableMessages =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection terminated due to connection timeout|PGlite is closed/i;

/**
 * Whether an error means the database cannot be reached right now (refused, lost, shutting
 * down), as opposed to a statement it refused. Such a request may succeed once the pool has
 * reconnected, which it does on its own: the HTTP layer answers 503 database_unavailable.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner)))
    return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrnos.has(code) || unavailableStates.test(code))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && unavailableMessages.test(message);
}
