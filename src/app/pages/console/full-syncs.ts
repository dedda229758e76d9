// Full syncs (admins): held departures, each with the students it would depart, confirmed or
// discarded after a confirmation step; and the recent full syncs with their outcome. The
// decision is the admin API's (which skips students pushed again since the sync finished).
// A sync's page reads the sync alone and one page of its departing students (the API's
// keyset-paged departures), so it costs the same for 10 departures as for 10,000.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf } from './context.ts';
import { confirmed, formErrors, when } from './forms.ts';
import { CursorQuery, listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String() });
const SyncParams = Type.Object({ slug: Type.String(), id: Type.String() });
/** Departing students per page of a sync's page; the confirmation names the first few. */
const PAGE_SIZE = 100;
const NAMED_IN_CONFIRMATION = 20;

interface FullSync {
  id: string;
  cohort_id: string;
  sync_id: string;
  status: string;
  pages: number;
  cohort_size: number | null;
  departures: number | null;
  threshold: number;
  started_at: string;
  finished_at: string | null;
  decided_at: string | null;
  decided_by: string | null;
}

interface DepartingStudent {
  id: string;
  email: string;
  student_id_ext: string;
  departed_at: string | null;
}

const decisions = {
  confirm: {
    title: 'Depart these students?',
    message:
      'The students listed are marked departed (nothing is deleted). A student pushed again since the sync finished is skipped.',
    button: 'Confirm the departures',
    done: 'departures_confirmed',
  },
  discard: {
    title: 'Discard these departures?',
    message: 'Nobody is departed by this full sync. The next full sync decides again.',
    button: 'Discard the departures',
    done: 'departures_discarded',
  },
} as const;

export function fullSyncRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}`, page: `/console/${slug}/full-syncs` };
  };

  const cohortNames = async (request: FastifyRequest) => {
    const cohorts = await ctx(request).api.get<{ items: { id: string; name: string }[] }>(
      `${paths(request).api}/cohorts?limit=200`,
    );
    return Object.fromEntries(cohorts.items.map((c) => [c.id, c.name]));
  };

  app.get(
    '/:slug/full-syncs',
    { config: { access: 'admin' }, schema: { hide: true, params: Params } },
    async (request) => {
      const c = ctx(request);
      const { api } = paths(request);
      const [held, recent, cohorts] = await Promise.all([
        c.api.get<{ items: FullSync[] }>(`${api}/full-syncs?status=held&limit=100`),
        c.api.get<{ items: FullSync[] }>(`${api}/full-syncs?limit=20`),
        cohortNames(request),
      ]);
      return c.render('console/full-syncs.eta', {
        title: 'Full syncs',
        held: held.items,
        recent: recent.items,
        cohorts,
        when,
      });
    },
  );

  /** The sync alone: its departing students are paged separately. */
  const syncOf = (request: FastifyRequest, id: string) =>
    ctx(request).api.get<FullSync>(
      `${paths(request).api}/full-syncs/${encodeURIComponent(id)}?departing_students=false`,
    );

  const detail = async (
    request: FastifyRequest,
    id: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const c = ctx(request);
    const { api, page } = paths(request);
    const cursor = (request.query as { cursor?: string } | undefined)?.cursor;
    const [sync, cohorts] = await Promise.all([syncOf(request, id), cohortNames(request)]);
    const students = await listPage<DepartingStudent>(
      c.api,
      `${api}/full-syncs/${encodeURIComponent(id)}/departures`,
      {},
      { cursor, size: PAGE_SIZE },
    );
    return c.render(
      'console/full-sync.eta',
      {
        title: `Full sync ${sync.sync_id}`,
        sync,
        students,
        pageSize: PAGE_SIZE,
        self: `${page}/${encodeURIComponent(id)}`,
        cohort: cohorts[sync.cohort_id],
        when,
        ...extra,
      },
      students.problem ? 400 : status,
    );
  };

  app.get(
    '/:slug/full-syncs/:id',
    { config: { access: 'admin' }, schema: { hide: true, params: SyncParams, querystring: CursorQuery } },
    async (request) => detail(request, request.params.id),
  );

  for (const action of ['confirm', 'discard'] as const) {
    app.post(
      `/:slug/full-syncs/:id/${action}`,
      { config: { access: 'admin' }, schema: { hide: true, params: SyncParams } },
      async (request, reply) => {
        const c = ctx(request);
        const { api, page } = paths(request);
        const id = request.params.id;
        const words = decisions[action];
        if (!confirmed(request.body)) {
          const [sync, first] = await Promise.all([
            syncOf(request, id),
            c.api.get<{ items: DepartingStudent[]; next_cursor: string | null }>(
              `${api}/full-syncs/${encodeURIComponent(id)}/departures?limit=${NAMED_IN_CONFIRMATION}`,
            ),
          ]);
          const count = sync.departures ?? first.items.length;
          const more = count > first.items.length ? [`and ${count - first.items.length} more`] : [];
          return c.render('console/confirm.eta', {
            title: words.title,
            message: `${words.message} Full sync ${sync.sync_id}: ${count} student${count === 1 ? '' : 's'}.`,
            details:
              action === 'confirm'
                ? [...first.items.map((s) => s.email || s.student_id_ext || s.id), ...more]
                : undefined,
            action: `${page}/${encodeURIComponent(id)}/${action}`,
            button: words.button,
            back: `${page}/${encodeURIComponent(id)}`,
          });
        }
        const answer = await c.api.call<{ departed: number }>(
          'POST',
          `${api}/full-syncs/${encodeURIComponent(id)}/${action}`,
          { actor: c.caller.actor },
        );
        if (!answer.ok) return detail(request, id, formErrors(answer.problem, []), answer.status);
        return reply.redirect(`${page}?done=${words.done}`, 303);
      },
    );
  }
}
