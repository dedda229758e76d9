// Text that PostgreSQL can store. Its text and jsonb types refuse the NUL character, and
// JSON with a lone UTF-16 surrogate; input carrying either must become a 4xx or a row error,
// never reach a statement.

/** Whether a string can be stored as PostgreSQL text or inside jsonb. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

/**
 * JSON for a jsonb column that echoes client input (run history, audit details): NUL and lone
 * surrogates are replaced with U+FFFD, since a record of what was sent must not fail on it.
 */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    typeof v === 'string' && !isStorableText(v) ? v.replaceAll('\u0000', '\uFFFD').toWellFormed() : v,
  );
}
