// Admin API: an institution's OpenID Connect provider, and the platform operators' own provider.
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminSecurity, DateTime, errorResponses, SlugParams, Text } from '../schemas.ts';

const IdentityProvider = Type.Object({
  issuer: Type.String(),
  client_id: Type.String(),
  client_secret_set: Type.Literal(true, {
    description: 'The client secret is stored (encrypted); it is never returned',
  }),
  email_domains: Type.Array(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const ProviderBody = Type.Object(
  {
    issuer: Type.String({
      format: 'uri',
      maxLength: 500,
      description: 'https issuer URL; discovery is read from it at once',
    }),
    client_id: Text({ minLength: 1, maxLength: 500, nonBlank: true }),
    client_secret: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 2000,
        nonBlank: true,
        description: 'Required the first time; omit to keep the stored one',
      }),
    ),
    email_domains: Type.Optional(
      Type.Array(Type.String({ maxLength: 253 }), {
        maxItems: 50,
        description:
          "Domains of the institution's email addresses: the sign-in page finds the institution by them",
      }),
    ),
  },
  { additionalProperties: false },
);

export function adminIdentityProviderRoutes(app: App, services: Services): void {
  const { identityProviders } = services;
  const tags = ['admin: people and sign-in'];
  const security = adminSecurity;

  const providerRoutes = (
    path: string,
    access: 'admin' | 'operator',
    institutionId: (r: FastifyRequest) => string | null,
    who: string,
  ) => {
    app.get(
      path,
      {
        config: { access },
        schema: {
          tags,
          security,
          summary: `Read ${who} identity provider (without its client secret)`,
          ...(access === 'admin' ? { params: SlugParams } : {}),
          response: { 200: IdentityProvider, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => identityProviders.get(institutionId(request)),
    );
    app.put(
      path,
      {
        config: { access },
        schema: {
          tags,
          security,
          summary: `Configure ${who} OpenID Connect provider`,
          description:
            'Discovery is read from the issuer at once, through the outbound URL guard (https; no private, loopback, ' +
            'link-local or metadata address, checked on the address connected to): a refused or unreadable issuer is a ' +
            '400 naming the reason. The client secret is stored encrypted and never returned. Register ' +
            '`{PUBLIC_BASE_URL}/auth/callback` as the redirect URI at the provider.',
          ...(access === 'admin' ? { params: SlugParams } : {}),
          body: ProviderBody,
          response: { 200: IdentityProvider, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) =>
        identityProviders.put(institutionId(request), request.body as Static<typeof ProviderBody>),
    );
    app.delete(
      path,
      {
        config: { access },
        schema: {
          tags,
          security,
          summary: `Remove ${who} identity provider (nobody can sign in through it any more)`,
          ...(access === 'admin' ? { params: SlugParams } : {}),
          response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await identityProviders.remove(institutionId(request));
        return reply.status(204).send(null);
      },
    );
  };
  providerRoutes(
    '/admin/v1/institutions/:slug/identity-provider',
    'admin',
    (r) => institutionOf(r).id,
    "the institution's",
  );
  providerRoutes('/admin/v1/identity-provider', 'operator', () => null, "the platform operators'");
}
