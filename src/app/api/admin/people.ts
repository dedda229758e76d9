// Admin API: who is asking (GET /admin/v1/me) and the people of an institution: inviting, reading,
// changing roles and permissions, removing, ending sessions. The identity providers:
// ./identity-providers.ts; the operators and their sign-in links: ./operators.ts; the audit:
// ./audit.ts.
import { Type } from 'typebox';
import type { Caller } from '../../../domain/access/policy.ts';
import {
  endPersonSessions,
  getPerson,
  invitePerson,
  listPeople,
  removePerson,
  updatePerson,
} from '../../../domain/people/people.ts';
import { InviteBody, Person, PersonChangeBody } from '../../../domain/people/schemas.ts';
import type { Services } from '../../../services.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import { csrfToken } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { adminSecurity, errorResponses, SlugParams, Uuid } from '../schemas.ts';
import { adminAuditRoutes } from './audit.ts';
import { adminIdentityProviderRoutes } from './identity-providers.ts';
import { adminOperatorRoutes } from './operators.ts';

export const peopleTags = ['admin: people and sign-in'];

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
  meRoute(app);
  peopleRoutes(app, services);
  adminIdentityProviderRoutes(app, services);
  adminOperatorRoutes(app, services);
  adminAuditRoutes(app, services);
}

function meRoute(app: App): void {
  const tags = peopleTags;
  const security = adminSecurity;
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
}

function peopleRoutes(app: App, { db, clock, sessions }: Services): void {
  const deps = { db, clock, sessions };
  const tags = peopleTags;
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
          "by verified email the first time and by the provider's subject after that. manage_integrations needs the admin role.",
        params: SlugParams,
        body: InviteBody,
        response: { 201: Person, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        await invitePerson(deps, institutionOf(request).id, {
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
    async (request) => ({ items: await listPeople(db, institutionOf(request).id) }),
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
    async (request) => getPerson(db, institutionOf(request).id, request.params.id),
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
        body: PersonChangeBody,
        response: { 200: Person, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updatePerson(deps, institutionOf(request).id, request.params.id, request.body),
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
      await removePerson(deps, institutionOf(request).id, request.params.id);
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
    async (request) => endPersonSessions(deps, institutionOf(request).id, request.params.id),
  );
}
