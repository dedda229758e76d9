// Admin API of saved replies: named texts staff insert into replies (docs/console.md). Staff and
// admins read them (the reply box lists them); admins add, change and delete them, each recorded in
// the admin audit by the request context.
import { Type } from 'typebox';
import {
  changeSavedReply,
  createSavedReply,
  listSavedReplies,
  MAX_SAVED_REPLY_BODY,
  MAX_SAVED_REPLY_NAME,
  removeSavedReply,
} from '../../../domain/saved-replies/saved-replies.ts';
import { DateTime, Text, Uuid } from '../../../lib/schema.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { errorResponses, SlugParams } from '../schemas.ts';

const SavedReply = Type.Object({
  id: Uuid(),
  name: Type.String(),
  body: Type.String({ description: 'Inserted into the reply box as it is; staff edit it before sending' }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const SavedReplyBody = Type.Object(
  {
    name: Text({
      minLength: 1,
      maxLength: MAX_SAVED_REPLY_NAME,
      nonBlank: true,
      description: 'What staff pick it by; once per institution (case-insensitively), else 409 conflict',
    }),
    body: Text({ minLength: 1, maxLength: MAX_SAVED_REPLY_BODY, nonBlank: true }),
  },
  { additionalProperties: false },
);

export function adminSavedReplyRoutes(app: App): void {
  const tags = ['admin: help desk'];
  const base = '/admin/v1/institutions/:slug/saved-replies';
  const ItemParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Saved reply id') })]);

  app.get(
    base,
    institutionRoute('helpdesk', tags, {
      summary: "List the institution's saved replies, by name",
      response: { 200: Type.Object({ items: Type.Array(SavedReply) }), ...errorResponses(401, 403, 404) },
    }),
    async (request) => ({ items: await listSavedReplies(request.deps.db, institutionOf(request).id) }),
  );

  app.post(
    base,
    institutionRoute('admin', tags, {
      summary: 'Add a saved reply (at most 50 per institution)',
      body: SavedReplyBody,
      response: { 201: SavedReply, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request, reply) =>
      reply.status(201).send(await createSavedReply(request.deps, institutionOf(request).id, request.body)),
  );

  app.patch(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Change a saved reply (replies already sent keep their words)',
      params: ItemParams,
      body: SavedReplyBody,
      response: { 200: SavedReply, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) =>
      changeSavedReply(request.deps, institutionOf(request).id, request.params.id, request.body),
  );

  app.delete(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Delete a saved reply',
      params: ItemParams,
      response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
    }),
    async (request, reply) => {
      await removeSavedReply(request.deps.db, institutionOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
