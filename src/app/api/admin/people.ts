// Admin API: who is asking (GET /admin/v1/me), the people of an institution, their sessions,
// the institution's identity provider, the platform's operators and their provider, one-time
// operator sign-in links, and the admin audit.
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Caller } from '../../../domain/access/policy.ts';
import { permissions, roles } from '../../../domain/access/policy.ts';
import type { Services } from '../../../services.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import { csrfToken } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { adminSecurity, DateTime, errorResponses, SlugParams, Text, Uuid } from '../schemas.ts';

const Role = Type.Union(
  roles.map((r) => Type.Literal(r)),
  { description: 'admin: runs the integrations and the people; staff: works help requests' },
);
const PermissionSchema = Type.Union(
  permissions.map((p) => Type.Literal(p)),
  { description: 'manage_integrations: the help-sync secret and webhook endpoints (admins only)' },
);
const Email = Type.String({
  format: 'email',
  maxLength: 320,
  description: 'Matched case-insensitively at sign-in',
});

const Person = Type.Object({
  id: Uuid(),
  email: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
  linked: Type.Boolean({
    description: 'Whether the person has signed in (their provider subject is linked)',
  }),
  last_sign_in_at: Type.Union([DateTime(), Type.Null()]),
  created_at: DateTime(),
  updated_at: DateTime(),
});

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

const Me = Type.Object({
  kind: Type.Union([Type.Literal('operator'), Type.Literal('person'), Type.Literal('student')]),
  actor: Type.String({ description: 'The name recorded in audit trails' }),
  person_id: Type.Optional(Uuid()),
  student_id: Type.Optional(Uuid()),
  institution_id: Type.Optional(Uuid()),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
  session_id: Type.Optional(Uuid('Present when signed in with a session cookie')),
  csrf_token: Type.Optional(
    Type.String({
      description: 'Send as x-csrf-token on every state-changing request made with the session cookie',
    }),
  ),
});

function describe(caller: Caller) {
  switch (caller.kind) {
    case 'operator':
      return {
        kind: caller.kind,
        actor: caller.actor,
        person_id: caller.personId,
        roles: ['operator'],
        permissions: [],
      };
    case 'person':
      return {
        kind: caller.kind,
        actor: caller.actor,
        person_id: caller.personId,
        institution_id: caller.institutionId,
        roles: [...caller.roles],
        permissions: [...caller.permissions],
      };
    case 'student':
      return {
        kind: caller.kind,
        actor: caller.actor,
        student_id: caller.studentId,
        institution_id: caller.institutionId,
        roles: ['student'],
        permissions: [],
      };
  }
}

export function adminPeopleRoutes(app: App, services: Services): void {
  const { people, identityProviders, signIn, adminAudit } = services;
  const tags = ['admin: people and sign-in'];
  const security = adminSecurity;
  const base = '/admin/v1/institutions/:slug/people';
  const PersonParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Person id') })]);

  app.get(
    '/admin/v1/me',
    {
      config: { access: 'self' },
      schema: {
        tags,
        security,
        summary: 'Who is asking: operator, person (roles, permissions) or student',
        response: { 200: Me, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      return { ...describe(caller), session_id: caller.sessionId, csrf_token: csrfToken(request, reply) };
    },
  );

  app.post(
    base,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Invite a staff member or admin by email',
        description:
          "Nobody is created by signing in: a person invited here signs in through the institution's provider, matched " +
          "by verified email the first time and by the provider's subject after that. manage_integrations needs the admin role.",
        params: SlugParams,
        body: Type.Object(
          {
            email: Email,
            name: Text({ minLength: 1, maxLength: 200, nonBlank: true }),
            roles: Type.Array(Role, { minItems: 1, maxItems: 2 }),
            permissions: Type.Optional(Type.Array(PermissionSchema, { maxItems: 1 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Person, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        await people.invite(institutionOf(request).id, {
          ...request.body,
          permissions: request.body.permissions ?? [],
        }),
      ),
  );

  app.get(
    base,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'List the people of an institution (staff and admins)',
        params: SlugParams,
        response: { 200: Type.Object({ items: Type.Array(Person) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ items: await people.list(institutionOf(request).id) }),
  );

  app.get(
    `${base}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Read a person',
        params: PersonParams,
        response: { 200: Person, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => people.get(institutionOf(request).id, request.params.id),
  );

  app.patch(
    `${base}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: "Change a person's name, roles or permissions (effective on their next request)",
        params: PersonParams,
        body: Type.Object(
          {
            name: Type.Optional(Text({ minLength: 1, maxLength: 200, nonBlank: true })),
            roles: Type.Optional(Type.Array(Role, { minItems: 1, maxItems: 2 })),
            permissions: Type.Optional(Type.Array(PermissionSchema, { maxItems: 1 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Person, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => people.update(institutionOf(request).id, request.params.id, request.body),
  );

  app.delete(
    `${base}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Remove a person: their sessions end and their sign-in link goes',
        params: PersonParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await people.remove(institutionOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    `${base}/:id/sessions`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'End every session of a person (they must sign in again)',
        params: PersonParams,
        response: { 200: Type.Object({ ended: Type.Integer() }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => people.endSessions(institutionOf(request).id, request.params.id),
  );

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

  app.post(
    '/admin/v1/operators',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Add a platform operator who signs in through the platform identity provider',
        body: Type.Object(
          { email: Email, name: Text({ minLength: 1, maxLength: 200, nonBlank: true }) },
          { additionalProperties: false },
        ),
        response: { 201: Person, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await people.invite(null, { ...request.body, roles: [], permissions: [] })),
  );

  app.get(
    '/admin/v1/operators',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'List platform operators',
        response: { 200: Type.Object({ items: Type.Array(Person) }), ...errorResponses(401, 403) },
      },
    },
    async () => ({ items: await people.list(null) }),
  );

  app.delete(
    '/admin/v1/operators/:id',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Remove a platform operator',
        params: Type.Object({ id: Uuid() }),
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await people.remove(null, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/admin/v1/operator-sign-in-links',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Mint a one-time console sign-in link for the operator (valid 24 hours, usable once)',
        response: {
          201: Type.Object({ url: Type.String(), expires_at: DateTime() }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (_request, reply) => {
      const link = await signIn.mintOperatorLink();
      return reply.status(201).send({ url: link.url, expires_at: link.expiresAt });
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/audit',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'The admin audit: every change made through the admin API, newest first',
        params: SlugParams,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          before: Type.Optional(Uuid('The last id of the previous page')),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                id: Uuid(),
                actor_kind: Type.String(),
                actor_id: Type.Union([Uuid(), Type.Null()]),
                actor: Type.String(),
                session_id: Type.Union([Uuid(), Type.Null()]),
                action: Type.String(),
                target: Type.Union([Type.String(), Type.Null()]),
                status: Type.Integer(),
                request_id: Type.Union([Type.String(), Type.Null()]),
                at: DateTime(),
              }),
            ),
          }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => ({
      items: await adminAudit.list(institutionOf(request).id, {
        limit: request.query.limit ?? 100,
        before: request.query.before,
      }),
    }),
  );
}
