// Admin API: the people of an institution (staff and admins): invitations, roles and permissions
// (who may change them is decided in src/domain/access/grant-changes.ts), removal, and ending
// someone's sessions.
import { Type } from 'typebox';
import { permissions, roles } from '../../../domain/access/policy.ts';
import type { Services } from '../../../services.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
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
export const Email = Type.String({
  format: 'email',
  maxLength: 320,
  description: 'Matched case-insensitively at sign-in',
});

export const Person = Type.Object({
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

export function adminPeopleRoutes(app: App, services: Services): void {
  const { people } = services;
  const tags = ['admin: people and sign-in'];
  const security = adminSecurity;
  const base = '/admin/v1/institutions/:slug/people';
  const PersonParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Person id') })]);

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
          "by verified email the first time and by the provider's subject after that. manage_integrations needs the admin role, " +
          'and only an admin holding it (or the operator) may invite with it (otherwise 403 `manage_integrations_required`).',
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
      reply
        .status(201)
        .send(
          await people.invite(
            institutionOf(request).id,
            { ...request.body, permissions: request.body.permissions ?? [] },
            callerOf(request),
          ),
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
        description:
          'Granting or taking away manage_integrations (directly, or by dropping the admin role it needs) needs the ' +
          'caller to hold it, or to be the operator: otherwise 403 `manage_integrations_required`. Nobody changes ' +
          'their own roles or permissions (403 `own_roles_unchangeable`); their own name they may.',
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
    async (request) =>
      people.update(institutionOf(request).id, request.params.id, request.body, callerOf(request)),
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
}
