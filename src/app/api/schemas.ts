// Schemas shared by several routes: the error body, paging, nullable values, identifiers and
// text. Each is defined here once; routes import them.
import { type TSchema, Type } from 'typebox';
import { Nullable, Uuid } from '../../lib/schema.ts';

export {
  DateTime,
  DisplayName,
  Nullable,
  StringEnum,
  storableTextPattern,
  Text,
  Uuid,
} from '../../lib/schema.ts';

import type { KeysetPage, Paged } from '../../db/keyset.ts';
import { decodeCursor, encodeCursor, type KeysetOrder, MAX_CURSOR_LENGTH } from '../../lib/cursor.ts';
import { slugPattern } from '../../lib/ids.ts';

/** The largest page of an admin listing. */
export const MAX_PAGE = 1000;

const ErrorBody = Type.Object(
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

/** The paging parameters of every admin listing: a page size and the cursor of the page before. */
export const CursorQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 100, description: 'Rows per page' }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: MAX_CURSOR_LENGTH,
      description:
        'The next_cursor of the previous page; omit for the first page. Opaque: an edited cursor, or one ' +
        'of another listing, is 400 invalid_cursor.',
    }),
  ),
});

/** A page of a listing: its rows, and the cursor of the next page (null after the last). */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    next_cursor: Nullable(
      Type.String({ description: 'Pass as cursor to read the next page; null when this page is the last' }),
    ),
  });

/** The keyset page a listing request asks for (the cursor decoded, or 400 invalid_cursor). */
export function pageOf(order: KeysetOrder, query: { limit?: number; cursor?: string }): KeysetPage {
  return {
    limit: query.limit ?? 100,
    after: query.cursor === undefined ? undefined : decodeCursor(order, query.cursor),
  };
}

/** The reply body of a listing page. */
export function pageReply<T>(
  order: KeysetOrder,
  paged: Paged<T>,
): { items: T[]; next_cursor: string | null } {
  return { items: paged.items, next_cursor: paged.next ? encodeCursor(order, paged.next) : null };
}

/** A CSV export's body (text/csv, RFC 4180, header row first). */
export const CsvBody = Type.String({ description: 'CSV (text/csv; RFC 4180) with a header row' });

/** An institution slug, as created and as named in paths. */
export const Slug = (description = 'Institution slug') =>
  Type.String({ pattern: slugPattern.source, description });

export const SlugParams = Type.Object({ slug: Slug() });

/** The path parameters of one item of an institution: its slug, and the item's id (`description`). */
export const ItemParams = (description: string) =>
  Type.Intersect([SlugParams, Type.Object({ id: Uuid(description) })]);

/** Who may call an admin endpoint: the operator token, or a signed-in session (roles permitting). */
export const adminSecurity: { [scheme: string]: string[] }[] = [{ operatorToken: [] }, { sessionCookie: [] }];
