// Admin API: the platform's operators who sign in through the platform identity provider, and
// one-time operator sign-in links.
import { Type } from 'typebox';
import { invitePerson, listPeople, removePerson } from '../../../domain/people/people.ts';
import { NewOperatorBody, Person } from '../../../domain/people/schemas.ts';
import { mintOperatorLink } from '../../../domain/people/sign-in.ts';
import { callerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, replyWith } from '../route-helpers.ts';
import { DateTime, errorResponses, Uuid } from '../schemas.ts';

export function adminOperatorRoutes(app: App): void {
  const tags = ['admin: people and sign-in'];

  app.post(
    '/admin/v1/operators',
    adminRoute('operator', tags, {
      summary: 'Add a platform operator who signs in through the platform identity provider',
      body: NewOperatorBody,
      response: { 201: Person, ...errorResponses(400, 401, 403, 409) },
    }),
    async (request, reply) =>
      replyWith(
        reply,
        201,
        invitePerson(request.deps, null, { ...request.body, roles: [], permissions: [] }, callerOf(request)),
      ),
  );

  app.get(
    '/admin/v1/operators',
    adminRoute('operator', tags, {
      summary: 'List platform operators',
      response: { 200: Type.Object({ items: Type.Array(Person) }), ...errorResponses(401, 403) },
    }),
    async (request) => ({ items: await listPeople(request.deps.db, null) }),
  );

  app.delete(
    '/admin/v1/operators/:id',
    adminRoute('operator', tags, {
      summary: 'Remove a platform operator',
      params: Type.Object({ id: Uuid() }),
      response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
    }),
    async (request, reply) => {
      await removePerson(request.deps, null, request.params.id, callerOf(request));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/admin/v1/operator-sign-in-links',
    adminRoute('operator', tags, {
      summary: 'Mint a one-time console sign-in link for the operator (valid 24 hours, usable once)',
      response: {
        201: Type.Object({ url: Type.String(), expires_at: DateTime() }),
        ...errorResponses(401, 403),
      },
    }),
    async (request, reply) => {
      const link = await mintOperatorLink(request.deps);
      return reply.status(201).send({ url: link.url, expires_at: link.expiresAt });
    },
  );
}
