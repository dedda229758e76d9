// The one place the console pages through admin listings. The console's own URLs carry an
// opaque `cursor`: the API's `next_cursor`, passed back as the API's `cursor` (keyset paging, so
// page 1000 costs what page 1 costs). A listing the API refuses with a 400 (a cursor edited or
// left over from other filters, a malformed filter) is not an error page: the page shows the
// API's detail above an empty list, with the way back to the first page.
import { Type } from 'typebox';
import { MAX_CURSOR_LENGTH } from '../../../lib/cursor.ts';
import type { ConsoleApi } from './api.ts';
import { ApiRefusal, query } from './api.ts';

/**
 * A page's `cursor` as its querystring schema takes it: as long as the API accepts, since a
 * cursor carries the last row's sort key (a long email makes a long students cursor) and one cut
 * shorter here would be a 400 the API never gave.
 */
export const CursorParam = Type.Optional(Type.String({ maxLength: MAX_CURSOR_LENGTH }));
export const CursorQuery = Type.Object({ cursor: CursorParam });

export interface Listing<T> {
  items: T[];
  /** The cursor of the next page, when there is one. */
  next?: string;
  /** Whether this is not the first page (a link back to the start is shown). */
  paged: boolean;
  /** The API's refusal of the query, as "detail (code)", shown on the page. */
  problem?: string;
}

export async function listPage<T = Record<string, unknown>>(
  api: ConsoleApi,
  path: string,
  filters: Record<string, string | number | boolean | undefined | null>,
  options: { cursor?: string; size?: number } = {},
): Promise<Listing<T>> {
  const size = options.size ?? 50;
  const cursor = options.cursor || undefined;
  const answer = await api.call<{ items: T[]; next_cursor?: string | null }>(
    'GET',
    `${path}${query({ ...filters, limit: size, cursor })}`,
  );
  if (!answer.ok) {
    if (answer.status !== 400) throw new ApiRefusal(answer.status, answer.problem);
    const detail = answer.problem.detail ?? 'the listing could not be read with these values';
    return { items: [], paged: Boolean(cursor), problem: `${detail} (${answer.problem.error})` };
  }
  return {
    items: answer.body.items,
    next: answer.body.next_cursor ?? undefined,
    paged: Boolean(cursor),
  };
}
