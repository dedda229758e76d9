// The options every admin route repeats, written once: the access it needs, the admin security
// schemes, its tags, the institution slug in its path, and the paging of a listing. A route
// module passes its own schema (summary, body, responses); the served OpenAPI document is the
// same as with the options spelled out.
import type { FastifyContextConfig, FastifySchema } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { KeysetPage, Paged } from '../../db/keyset.ts';
import type { Access } from '../../domain/access/policy.ts';
import type { Deps } from '../../domain/deps.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import { institutionOf } from '../context/request-context.ts';
import type { App } from '../types.ts';
import {
  adminSecurity,
  CursorQuery,
  errorResponses,
  Page,
  pageOf,
  pageReply,
  SlugParams,
} from './schemas.ts';

/** The options of an admin route: who may call it, and its schema under the admin security schemes. */
export function adminRoute<S extends FastifySchema>(
  access: Access,
  tags: string[],
  schema: S,
  config: Omit<FastifyContextConfig, 'access'> = {},
) {
  return { config: { access, ...config }, schema: { tags, security: adminSecurity, ...schema } };
}

/** The options of an admin route under /institutions/:slug: as adminRoute, with the slug parameter. */
export function institutionRoute<S extends FastifySchema>(
  access: Access,
  tags: string[],
  schema: S,
  config: Omit<FastifyContextConfig, 'access'> = {},
) {
  return adminRoute(access, tags, { params: SlugParams, ...schema }, config);
}

/** The query and responses of an institution's listing: a page of `item` per request, 400 for a bad cursor. */
export function listingSchema<T extends TSchema>(item: T) {
  return { querystring: CursorQuery, response: { 200: Page(item), ...errorResponses(400, 401, 404) } };
}

/** As listingSchema, with the listing's filters beside the paging parameters (400 for a bad filter too). */
export function filteredListingSchema<T extends TSchema, F extends TSchema>(item: T, filters: F) {
  return {
    querystring: Type.Intersect([CursorQuery, filters]),
    response: { 200: Page(item), ...errorResponses(400, 401, 404) },
  };
}

/** A listing's reply: the page the query asks for, in `order`, read by `read`, with the next cursor. */
export async function listingReply<T>(
  order: KeysetOrder,
  query: { limit?: number; cursor?: string },
  read: (page: KeysetPage) => Promise<Paged<T>>,
): Promise<{ items: T[]; next_cursor: string | null }> {
  return pageReply(order, await read(pageOf(order, query)));
}

/** What a listing of an institution's rows declares: one keyset order, and maybe filters. */
export interface InstitutionListing<T extends TSchema, F extends TSchema = TSchema> {
  /** The path below /admin/v1/institutions/:slug/. */
  path: string;
  /** Who may list; read access unless said. */
  access?: Access;
  summary: string;
  description?: string;
  item: T;
  /** The filters the query takes beside the paging parameters; none unless said. */
  filters?: F;
  order: KeysetOrder;
  /** Reads a page with the query's filters; its rows are checked against `item` where the listing is declared. */
  list: (
    db: Deps['db'],
    institutionId: string,
    page: KeysetPage,
    query: Static<F>,
  ) => Promise<Paged<Static<T>>>;
}

/** A listing of an institution's rows, a page per request. */
export function institutionListingRoute<T extends TSchema, F extends TSchema>(
  app: App,
  tags: string[],
  listing: InstitutionListing<T, F>,
): void {
  const { path, access = 'read', summary, description, item, filters, order, list } = listing;
  app.get(
    `/admin/v1/institutions/:slug/${path}`,
    institutionRoute(access, tags, {
      summary,
      ...(description === undefined ? {} : { description }),
      ...(filters ? filteredListingSchema(item, filters) : listingSchema(item)),
    }),
    // Static<T> of a generic T is opaque to the reply's type; the rows were checked against it above.
    async (request) => {
      // The query was checked against the schema above: the paging parameters and the filters.
      const query = request.query as Static<typeof CursorQuery> & Static<F>;
      return listingReply(order, query, (page) =>
        list(request.deps.db, institutionOf(request).id, page, query),
      ) as never;
    },
  );
}

/**
 * Answers `status` (201 for a thing made, 202 for work queued) with what `result` resolves to: the
 * handler passes the domain call itself.
 */
export async function replyWith<R, T>(
  reply: { status(code: number): { send(payload: T): R } },
  status: 201 | 202,
  result: Promise<T>,
): Promise<R> {
  return reply.status(status).send(await result);
}
