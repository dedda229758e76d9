// Keyset pages from the database. A listing query selects its sort key as one extra column,
// `sort_key` (json_build_array of the ORDER BY expressions, so timestamps keep their
// microseconds and text its database lower-casing), filters with a row comparison
// `(<order by>) > (<key>)`, and fetches one row more than the page: that row's presence says
// whether a next page exists, so the last page ends with no cursor rather than an empty page.
import type { CursorKey } from '../lib/cursor.ts';
import type { Queryable } from './db.ts';

export interface KeysetPage {
  limit: number;
  /** The sort key of the last row of the previous page; absent for the first page. */
  after?: CursorKey;
}

export interface Paged<T> {
  items: T[];
  /** The key to pass as `after` for the next page; null after the last page. */
  next: CursorKey | null;
}

/** The page out of rows fetched with LIMIT limit + 1 and a `sort_key` column. */
export function keysetPage<T extends { sort_key: CursorKey }>(
  rows: T[],
  limit: number,
): Paged<Omit<T, 'sort_key'>> {
  const items = rows.slice(0, limit).map(({ sort_key, ...item }) => item);
  return { items, next: rows.length > limit ? rows[limit - 1].sort_key : null };
}

/**
 * One keyset page read with `sql`: its parameters are `params`, then the `keyParts` parts of the
 * cursor (nulls on the first page), then the limit (one row more than the page).
 */
export async function readKeysetPage<T>(
  db: Queryable,
  sql: string,
  params: unknown[],
  page: KeysetPage,
  keyParts = 1,
): Promise<Paged<T>> {
  const after = Array.from({ length: keyParts }, (_, i) => page.after?.[i] ?? null);
  const { rows } = await db.query<T & { sort_key: CursorKey }>(sql, [...params, ...after, page.limit + 1]);
  return keysetPage(rows, page.limit) as Paged<T>;
}
