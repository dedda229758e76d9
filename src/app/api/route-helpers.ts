// The options every admin route repeats, written once: the access it needs, the admin security
// schemes, its tags, the institution slug in its path, and the paging of a listing. A route
// module passes its own schema (summary, body, responses); the served OpenAPI document is the
// same as with the options spelled out.
import type { FastifyContextConfig, FastifySchema } from 'fastify';
import type { TSchema } from 'typebox';
import type { Access } from '../../domain/access/policy.ts';
import { adminSecurity, CursorQuery, errorResponses, Page, SlugParams } from './schemas.ts';

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

/** The query and responses of a listing: a page of `item` per request, 400 for a bad cursor or filter. */
export function listingSchema<T extends TSchema>(item: T) {
  return { querystring: CursorQuery, response: { 200: Page(item), ...errorResponses(400, 401, 404) } };
}

/** The 404 of a revoke route whose secret is not active: `no active <what>`. */
export function noActiveSecret(what: string) {
  return { error: 'not_found', detail: `no active ${what}` };
}
