// Campuses (staff and admins, as the API's listings): every campus, cursor-paged, and the names
// that match a campus because of an earlier merge. The platform operator also merges one campus
// into another here: pick both, confirm, then the API's merge moves students and units and keeps
// the old name as an alias; its refusal (no such campus, a campus into itself) is shown next to
// the field it names. The form is offered only where the API's policy allows the merge.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf } from './context.ts';
import { confirmed, formErrors, text, when } from './forms.ts';
import { CursorQuery, listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String() });

interface Campus {
  id: string;
  name: string;
  created_at: string;
}

interface Alias {
  alias: string;
  campus_id: string;
  campus_name: string;
  created_at: string;
}

export function dataCampusRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}`, page: `/console/${slug}/campuses` };
  };

  /** The merge form's choices: every campus when they fit in one read, else a text field. */
  const mergeChoices = async (request: FastifyRequest) => {
    const c = ctx(request);
    if (!c.may('operator')) return undefined;
    const page = await c.api.get<{ items: Campus[]; next_cursor: string | null }>(
      `${paths(request).api}/campuses?limit=1000`,
    );
    return page.next_cursor ? undefined : page.items;
  };

  const campuses = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const { api, page } = paths(request);
    const cursor = (request.query as { cursor?: string } | undefined)?.cursor;
    const [listing, aliases, choices] = await Promise.all([
      listPage<Campus>(c.api, `${api}/campuses`, {}, { cursor }),
      c.api.get<{ items: Alias[] }>(`${api}/campus-aliases`),
      mergeChoices(request),
    ]);
    return c.render(
      'console/data-campuses.eta',
      {
        title: 'Campuses',
        listing,
        aliases: aliases.items,
        mayMerge: c.may('operator'),
        choices,
        values: { from: '', into: '' },
        errors: {},
        self: `${page}?`,
        when,
        ...extra,
      },
      listing.problem && status === 200 ? 400 : status,
    );
  };

  app.get(
    '/:slug/campuses',
    { config: { access: 'read' }, schema: { hide: true, params: Params, querystring: CursorQuery } },
    async (request) => campuses(request),
  );

  app.post(
    '/:slug/campuses/merge',
    { config: { access: 'operator' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      const values = { from: text(request.body, 'from'), into: text(request.body, 'into') };
      const missing = {
        ...(values.from ? {} : { from: 'Choose the campus that goes.' }),
        ...(values.into ? {} : { into: 'Choose the campus that stays.' }),
      };
      if (Object.keys(missing).length) return campuses(request, { values, errors: missing }, 400);
      if (!confirmed(request.body)) {
        // Name the campuses as the person knows them; a typed name or id is shown as typed.
        const names = Object.fromEntries(((await mergeChoices(request)) ?? []).map((x) => [x.id, x.name]));
        const from = names[values.from] ?? values.from;
        const into = names[values.into] ?? values.into;
        return c.render('console/confirm.eta', {
          title: `Merge ${from} into ${into}?`,
          message: `Every student and unit of ${from} moves to ${into}, and ${from} is deleted. Its name is kept as an alias of ${into}, so a later push that still uses it matches ${into}. This cannot be undone from the console.`,
          action: `${page}/merge`,
          button: `Merge into ${into}`,
          fields: values,
          back: page,
        });
      }
      const answer = await c.api.call('POST', `${api}/campuses/merge`, { ...values, actor: c.caller.actor });
      if (!answer.ok)
        return campuses(request, { values, ...formErrors(answer.problem, ['from', 'into']) }, answer.status);
      return reply.redirect(`${page}?done=campuses_merged`, 303);
    },
  );
}
