// Admin API: an institution's OpenID Connect provider, and the platform operators' own provider.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  confirmProvider,
  getProvider,
  putProvider,
  removeProvider,
} from '../../../domain/people/identity-providers.ts';
import { IdentityProvider, ProviderBody } from '../../../domain/people/schemas.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { errorResponses, SlugParams } from '../schemas.ts';

const tags = ['admin: people and sign-in'];

export function adminIdentityProviderRoutes(app: App): void {
  providerRoutes(
    app,
    '/admin/v1/institutions/:slug/identity-provider',
    'admin',
    (r) => institutionOf(r).id,
    "the institution's",
  );
  providerRoutes(app, '/admin/v1/identity-provider', 'operator', () => null, "the platform operators'");
  confirmationRoute(app);
}

/**
 * Reading the settings is for admins; changing or removing the provider decides who can sign
 * in as whom, so it needs Manage integrations (or the operator), as the secrets do.
 */
function providerRoutes(
  app: App,
  path: string,
  access: 'admin' | 'operator',
  institutionId: (r: FastifyRequest) => string | null,
  who: string,
): void {
  const change = access === 'admin' ? ('integrations' as const) : access;
  app.get(
    path,
    adminRoute(access, tags, {
      summary: `Read ${who} identity provider (without its client secret)`,
      ...(access === 'admin' ? { params: SlugParams } : {}),
      response: { 200: IdentityProvider, ...errorResponses(401, 403, 404) },
    }),
    async (request) => getProvider(request.deps.db, institutionId(request)),
  );
  app.put(
    path,
    adminRoute(change, tags, {
      summary: `Configure ${who} OpenID Connect provider`,
      description:
        'Discovery is read from the issuer at once, through the outbound URL guard (https; no private, loopback, ' +
        'link-local or metadata address, checked on the address connected to): a refused or unreadable issuer is a ' +
        '400 naming the reason. The client secret is stored encrypted and never returned. Register ' +
        '`{PUBLIC_BASE_URL}/auth/callback` as the redirect URI at the provider. ' +
        'Changing it needs Manage integrations (or the operator). Changing the issuer needs `client_secret` again ' +
        '(400 `missing_field` without it: the stored secret is never sent to another issuer); after an issuer ' +
        'change made by anyone but the operator, people who existed before it are not linked to accounts at the ' +
        'new issuer by their email until the operator confirms it (`links_held_since`; docs/sign-in.md). ' +
        'Only the operator sets email_domains (an admin may send them as stored, or leave them out to keep them): ' +
        'otherwise 403 `email_domains_operator_only`. A domain another institution holds is 409 ' +
        '`email_domain_taken` (with `domains`): a domain finds one institution at sign-in.',
      ...(access === 'admin' ? { params: SlugParams } : {}),
      body: ProviderBody,
      response: { 200: IdentityProvider, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) =>
      putProvider(request.deps, institutionId(request), request.body as ProviderBody, callerOf(request)),
  );
  app.delete(
    path,
    adminRoute(change, tags, {
      summary: `Remove ${who} identity provider (nobody can sign in through it any more)`,
      ...(access === 'admin' ? { params: SlugParams } : {}),
      response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
    }),
    async (request, reply) => {
      await removeProvider(request.deps.db, institutionId(request));
      return reply.status(204).send(null);
    },
  );
}

/** The operator confirms an issuer an admin set (docs/sign-in.md). */
function confirmationRoute(app: App): void {
  app.post(
    '/admin/v1/institutions/:slug/identity-provider/confirmation',
    institutionRoute('operator', tags, {
      summary: "Confirm the institution's current issuer (operator)",
      description:
        'After an issuer change made by anyone but the operator, people and students who existed before it are ' +
        'not linked to an account at the new issuer by their email (sign-in answers `link_confirmation_required`). ' +
        'The operator, having checked with the institution that the issuer is its own, confirms it here: ' +
        '`links_held_since` becomes null and those people link at their next sign-in.',
      response: { 200: IdentityProvider, ...errorResponses(401, 403, 404) },
    }),
    async (request) => confirmProvider(request.deps, institutionOf(request).id),
  );
}
