// The reply box of a request's page (staff and admins): a reply to the student, kept apart from the
// internal note (its own form, look and button; the note says it is staff-only). Sending posts the
// reply with the form's own Idempotency-Key, so a double click or a retried post sends one reply.
// "Insert" puts a saved reply into the box (after what is already typed) without sending
// anything: staff edit it, then send. Works without JavaScript.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../../db/db.ts';
import { addReply } from '../../../domain/helpdesk/conversation.ts';
import { actingStaff } from '../../../domain/helpdesk/rules.ts';
import { ReplyBody } from '../../../domain/helpdesk/schemas.ts';
import { getSavedReply, listSavedReplies } from '../../../domain/saved-replies/saved-replies.ts';
import type { App } from '../../types.ts';
import { checkForm } from '../form-check.ts';
import { ctx, institutionOf } from './context.ts';
import { checkErrors, refusalOf, text } from './forms.ts';

const RequestParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
const schema = { hide: true, params: RequestParams };
const fields = { text: { label: 'Reply', required: 'Write the reply before sending it' } };

type RequestPage = (
  request: FastifyRequest,
  extra?: Record<string, unknown>,
  status?: number,
) => Promise<FastifyReply>;

/** What the request page needs for its reply box: the saved replies and a fresh key for the form. */
export async function replyBoxData(db: Db, institutionId: string) {
  return { savedReplies: await listSavedReplies(db, institutionId), replyKey: randomUUID() };
}

/** The reply form's fields as posted: the text as typed (only trailing space trimmed), and its key. */
function posted(body: unknown) {
  const raw = (body as Record<string, unknown> | undefined)?.text;
  return {
    text: typeof raw === 'string' ? raw.replace(/\s+$/, '') : '',
    replyKey: text(body, '_idempotency_key').slice(0, 255) || randomUUID(),
  };
}

export function replyRoutes(app: App, requestPage: RequestPage): void {
  const pageOf = (request: FastifyRequest, id: string) =>
    `/console/${institutionOf(request).slug}/inbox/${id}`;

  app.post(
    '/:slug/inbox/:id/reply',
    { config: { access: 'helpdesk', idempotent: true, formFields: ['text', 'saved_reply'] }, schema },
    async (request, reply) => {
      const { text: message, replyKey } = posted(request.body);
      const shown = { values: { text: message }, replyKey };
      const checked = checkForm(ReplyBody, { text: message }, fields);
      if (!checked.ok) return requestPage(request, { ...shown, ...checkErrors(checked.errors) }, 400);
      const { id } = request.params;
      try {
        await addReply(request.deps, institutionOf(request).id, id, {
          text: checked.value.text,
          staff: actingStaff(ctx(request).caller, undefined),
        });
      } catch (error) {
        const refused = refusalOf(error, ['text']);
        return requestPage(request, { ...shown, ...refused }, refused.status);
      }
      return reply.redirect(`${pageOf(request, id)}?done=reply_sent#conversation`, 303);
    },
  );

  // Puts the chosen saved reply into the box after what was typed; sends nothing.
  app.post(
    '/:slug/inbox/:id/reply/insert',
    { config: { access: 'helpdesk', formFields: ['text', 'saved_reply'] }, schema },
    async (request) => {
      const { text: typed, replyKey } = posted(request.body);
      const chosen = text(request.body, 'saved_reply');
      if (chosen === '')
        return requestPage(
          request,
          { values: { text: typed }, replyKey, errors: { saved_reply: 'Choose a saved reply to insert' } },
          400,
        );
      try {
        const saved = await getSavedReply(request.deps.db, institutionOf(request).id, chosen);
        const combined = typed === '' ? saved.body : `${typed}\n\n${saved.body}`;
        return requestPage(request, { values: { text: combined, saved_reply: chosen }, replyKey });
      } catch (error) {
        const refused = refusalOf(error, ['saved_reply']);
        return requestPage(request, { values: { text: typed }, replyKey, ...refused }, refused.status);
      }
    },
  );
}
