// The one place the console pages through listings. The console's own URLs carry an opaque
// `cursor`: the listing's key of the last row shown, encoded as the API encodes its
// `next_cursor` (keyset paging, so page 1000 costs what page 1 costs). A listing the domain
// refuses with a 400 (a cursor edited or left over from other filters, a filter it does not
// accept) is not an error page: the page shows the refusal's detail above an empty list, with
// the way back to the first page.
import { type Static, type TSchema, Type } from 'typebox';
import type { KeysetPage, Paged } from '../../../db/keyset.ts';
import { ApiError } from '../../../errors.ts';
import { decodeCursor, encodeCursor, type KeysetOrder, MAX_CURSOR_LENGTH } from '../../../lib/cursor.ts';
import { checkForm, type FieldText } from '../form-check.ts';

/**
 * A page's `cursor` as its querystring schema takes it: as long as the API accepts, since a
 * cursor carries the last row's sort key (a long email makes a long students cursor) and one cut
 * shorter here would be a 400 the API never gave.
 */
export const CursorParam = Type.Optional(Type.String({ maxLength: MAX_CURSOR_LENGTH }));
export const CursorQuery = Type.Object({ cursor: CursorParam });

/**
 * A listing page's filter as its querystring schema takes it. Loose on purpose: the filters are
 * checked with the domain's schemas and a refusal is shown with the list, so the limit here only
 * keeps absurd URLs out.
 */
export const LooseFilter = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

export interface Listing<T> {
  items: T[];
  /** The cursor of the next page, when there is one. */
  next?: string;
  /** Whether this is not the first page (a link back to the start is shown). */
  paged: boolean;
  /** The API's refusal of the query, in words (its detail), shown on the page. */
  problem?: string;
}

/**
 * One page of a domain listing: the page's `cursor` decoded for the listing's order, `read` called
 * with that page, and the next page's cursor encoded. A 400 refusal (of the cursor or of a filter,
 * by the decoding or by `read`) becomes the listing's `problem`; any other failure is the page's.
 */
export async function readListing<T>(
  order: KeysetOrder,
  options: { cursor?: string; size?: number },
  read: (page: KeysetPage) => Promise<Paged<T>>,
): Promise<Listing<T>> {
  const cursor = options.cursor || undefined;
  const paged = Boolean(cursor);
  try {
    const page = await read({
      limit: options.size ?? 50,
      after: cursor === undefined ? undefined : decodeCursor(order, cursor),
    });
    return { items: page.items, next: page.next ? encodeCursor(order, page.next) : undefined, paged };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    // A cursor is the API's word: a person followed a link that no longer continues this list.
    const detail =
      error.code === 'invalid_cursor'
        ? 'This link to a later page is out of date or was changed, so the list cannot go on from it. Start again from the first page.'
        : String(error.extra.detail ?? 'the listing could not be read with these values');
    return { items: [], paged, problem: detail };
  }
}

/** A listing's filters: their values as the URL gives them, checked with the domain's schema. */
export interface ListingFilters<S extends TSchema> {
  schema: S;
  /** The values given (absent and empty ones are no filter). */
  values: Record<string, string | undefined>;
  /** How the page's filter form labels each field, for the sentences of a refusal. */
  fields: Record<string, FieldText>;
}

/**
 * One page of a filtered listing: the filters are checked first with the schema the API takes
 * them with, and a refusal is the listing's `problem` (every field's sentence, then the code the
 * API gives it), shown above an empty list; otherwise as `readListing`.
 */
export async function readFilteredListing<S extends TSchema, T>(
  filters: ListingFilters<S>,
  order: KeysetOrder,
  options: { cursor?: string; size?: number },
  read: (filter: Static<S>, page: KeysetPage) => Promise<Paged<T>>,
): Promise<Listing<T>> {
  const given = Object.fromEntries(Object.entries(filters.values).filter(([, value]) => value));
  const checked = checkForm(filters.schema, given, filters.fields);
  if (!checked.ok)
    return {
      items: [],
      paged: Boolean(options.cursor),
      problem: `${Object.values(checked.errors).join('. ')}.`,
    };
  return readListing(order, options, (page) => read(checked.value, page));
}

/**
 * The choices of a filter or a form's select: every row when they fit in one read, else none
 * (the page then offers a text field).
 */
export async function allOrNone<T>(read: (page: KeysetPage) => Promise<Paged<T>>, most = 1000) {
  const page = await read({ limit: most });
  return page.next ? undefined : page.items;
}

/** The query string of the filters given ('' when none is). */
export function searchOf(filters: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  return params.toString();
}

/** A page's URL with its filters, ready for a `cursor` to be added (the pager's base). */
export function listingUrl(page: string, filters: Record<string, string | undefined>): string {
  return `${page}?${searchOf(filters)}`;
}
