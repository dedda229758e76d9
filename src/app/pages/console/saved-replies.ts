// Saved replies (admins): named texts staff insert into a reply on a request's page and edit
// before sending (src/app/pages/console/replies.ts). Adding, changing and deleting one are console
// changes like any other, so the admin audit records who did it and when (request context).
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  changeSavedReply,
  createSavedReply,
  getSavedReply,
  listSavedReplies,
  MAX_SAVED_REPLIES,
  MAX_SAVED_REPLY_BODY,
  removeSavedReply,
  type SavedReplyInput,
  savedReplyProblems,
} from '../../../domain/saved-replies/saved-replies.ts';
import type { App } from '../../types.ts';
import { ctx, ItemPageParams, institutionOf, PageParams } from './context.ts';
import { refusalOf, text } from './forms.ts';

const config = { access: 'admin' as const };
const FIELDS = ['name', 'body'];

/** The form as posted: the name trimmed, the text as written (trailing space trimmed). */
function posted(body: unknown): SavedReplyInput {
  const raw = (body as Record<string, unknown> | undefined)?.body;
  return { name: text(body, 'name'), body: typeof raw === 'string' ? raw.replace(/\s+$/, '') : '' };
}

export function savedReplyRoutes(app: App): void {
  const pageOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/saved-replies`;

  const listPage = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const items = await listSavedReplies(request.deps.db, institutionOf(request).id);
    return ctx(request).render(
      'console/saved-replies.eta',
      {
        title: 'Saved replies',
        items,
        max: MAX_SAVED_REPLIES,
        maxBody: MAX_SAVED_REPLY_BODY,
        values: { name: '', body: '' },
        errors: {},
        ...extra,
      },
      status,
    );
  };

  const itemPage = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const { id } = request.params as { id: string };
    const item = await getSavedReply(request.deps.db, institutionOf(request).id, id);
    return ctx(request).render(
      'console/saved-reply.eta',
      {
        title: `Saved reply: ${item.name}`,
        item,
        maxBody: MAX_SAVED_REPLY_BODY,
        values: { name: item.name, body: item.body },
        errors: {},
        ...extra,
      },
      status,
    );
  };

  /**
   * A posted saved reply: checked, then saved and on to the list with `done`; what the check or
   * the domain refuses is shown on `page` again, with the values as posted.
   */
  const submit = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: typeof listPage,
    done: string,
    save: (values: SavedReplyInput) => Promise<unknown>,
  ) => {
    const values = posted(request.body);
    const problems = savedReplyProblems(values);
    if (Object.keys(problems).length > 0) return page(request, { values, errors: problems }, 400);
    try {
      await save(values);
    } catch (error) {
      const refused = refusalOf(error, FIELDS);
      return page(request, { values, ...refused }, refused.status);
    }
    return reply.redirect(`${pageOf(request)}?done=${done}`, 303);
  };

  app.get('/:slug/saved-replies', { config, schema: { hide: true, params: PageParams } }, async (request) =>
    listPage(request),
  );

  app.post(
    '/:slug/saved-replies',
    { config: { ...config, formFields: ['name', 'body'] }, schema: { hide: true, params: PageParams } },
    async (request, reply) =>
      submit(request, reply, listPage, 'saved_reply_created', (values) =>
        createSavedReply(request.deps, institutionOf(request).id, values),
      ),
  );

  app.get(
    '/:slug/saved-replies/:id',
    { config, schema: { hide: true, params: ItemPageParams } },
    async (request) => itemPage(request),
  );

  app.post(
    '/:slug/saved-replies/:id',
    { config: { ...config, formFields: ['name', 'body'] }, schema: { hide: true, params: ItemPageParams } },
    async (request, reply) =>
      submit(request, reply, itemPage, 'saved_reply_updated', (values) =>
        changeSavedReply(request.deps, institutionOf(request).id, request.params.id, values),
      ),
  );

  app.post(
    '/:slug/saved-replies/:id/delete',
    { config: { ...config, formFields: ['confirmed'] }, schema: { hide: true, params: ItemPageParams } },
    async (request, reply) => {
      await removeSavedReply(request.deps.db, institutionOf(request).id, request.params.id);
      return reply.redirect(`${pageOf(request)}?done=saved_reply_deleted`, 303);
    },
  );
}
