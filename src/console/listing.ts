// The one place the console pages through admin listings. The console's own URLs carry an
// opaque `cursor`; this helper turns it into whatever the API takes. The admin listings answer
// `{items, next_cursor}` (keyset paging), passed through as is: exactly `size` rows are asked
// for, since the API's cursor follows the last row it returned. A listing still paging by
// offset (`{items, limit, offset}`) gets the offset as its cursor, and a full page is taken
// to mean there may be more.
import type { ConsoleApi } from './api.ts';
import { query } from './api.ts';

export interface Listing<T> {
  items: T[];
  /** The cursor of the next page, when there is one. */
  next?: string;
  /** Whether this is not the first page (a link back to the start is shown). */
  paged: boolean;
}

export async function listPage<T = Record<string, unknown>>(
  api: ConsoleApi,
  path: string,
  filters: Record<string, string | number | boolean | undefined | null>,
  options: { cursor?: string; size?: number } = {},
): Promise<Listing<T>> {
  const size = options.size ?? 50;
  const offset = options.cursor && /^\d{1,9}$/.test(options.cursor) ? Number(options.cursor) : undefined;
  const cursorParam = options.cursor && offset === undefined ? options.cursor : undefined;
  const body = await api.get<{ items: T[]; next_cursor?: string | null }>(
    `${path}${query({ ...filters, limit: size, offset, cursor: cursorParam })}`,
  );
  if ('next_cursor' in body) {
    return { items: body.items, next: body.next_cursor ?? undefined, paged: Boolean(options.cursor) };
  }
  const more = body.items.length >= size;
  return {
    items: body.items,
    next: more ? String((offset ?? 0) + size) : undefined,
    paged: Boolean(offset),
  };
}
