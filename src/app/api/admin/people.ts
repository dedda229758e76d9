// Admin API: the people of an institution (staff and admins): invitations, roles and permissions
// (who may change them is decided in src/domain/access/grant-changes.ts), removal, and ending
// someone's sessions.
import { Type } from 'typebox';
import * as people from '../../../domain/people/people.ts';
import { InviteBody, Person, PersonChangeBody } from '../../../domain/people/schemas.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute, replyWith } from '../route-helpers.ts';
import { errorResponses, SlugParams, Uuid } from '../schemas.ts';

const tags = ['admin: people and sign-in'];
const base = '/admin/v1/institutions/:slug/people';
const PersonParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Person id') })]);

export function adminPeopleRoutes(app: App): void {
  inviteAndListRoutes(app);
  personRoutes(app);
}

/** Inviting someone, and the list. */
function inviteAndListRoutes(app: App): void {
  app.post(
    base,
    institutionRoute('admin', tags, {
      summary: 'Invite a staff member or admin by email',
      description:
        "Nobody is created by signing in: a person invited here signs in through the institution's provider, matched " +
        "by verified email the first time and by the provider's subject after that. manage_integrations needs the admin role, " +
        'and only an admin holding it (or the operator) may invite with it (otherwise 403 `manage_integrations_required`).',
      body: InviteBody,
      response: { 201: Person, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request, reply) =>
      replyWith(
        reply,
        201,
        people.invitePerson(
          request.deps,
          institutionOf(request).id,
          { ...request.body, permissions: request.body.permissions ?? [] },
          callerOf(request),
        ),
      ),
  );

  app.get(
    base,
    institutionRoute('admin', tags, {
      summary: 'List the people of an institution (staff and admins)',
      response: { 200: Type.Object({ items: Type.Array(Person) }), ...errorResponses(401, 403, 404) },
    }),
    async (request) => ({ items: await people.listPeople(request.deps.db, institutionOf(request).id) }),
  );
}

/** One person: read, change, remove, end their sessions. */
function personRoutes(app: App): void {
  app.get(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Read a person',
      params: PersonParams,
      response: { 200: Person, ...errorResponses(401, 403, 404) },
    }),
    async (request) => people.getPerson(request.deps.db, institutionOf(request).id, request.params.id),
  );

  app.patch(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: "Change a person's name, roles or permissions (effective on their next request)",
      description:
        'Granting or taking away manage_integrations (directly, or by dropping the admin role it needs) needs the ' +
        'caller to hold it, or to be the operator: otherwise 403 `manage_integrations_required`. Nobody changes ' +
        'their own roles or permissions (403 `own_roles_unchangeable`); their own name they may.',
      params: PersonParams,
      body: PersonChangeBody,
      response: { 200: Person, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) =>
      people.updatePerson(
        request.deps,
        institutionOf(request).id,
        request.params.id,
        request.body,
        callerOf(request),
      ),
  );

  app.delete(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Remove a person: their sessions end and their sign-in link goes',
      description:
        'Removing someone who holds Manage integrations takes the permission away: only a holder, or the operator, ' +
        'may (403 `manage_integrations_required`).',
      params: PersonParams,
      response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
    }),
    async (request, reply) => {
      await people.removePerson(
        request.deps,
        institutionOf(request).id,
        request.params.id,
        callerOf(request),
      );
      return reply.status(204).send(null);
    },
  );

  app.delete(
    `${base}/:id/sessions`,
    adminRoute('admin', tags, {
      summary: 'End every session of a person (they must sign in again)',
      params: PersonParams,
      response: { 200: Type.Object({ ended: Type.Integer() }), ...errorResponses(401, 403, 404) },
    }),
    async (request) => people.endPersonSessions(request.deps, institutionOf(request).id, request.params.id),
  );
}
