// Full syncs (admins): held departures, each with the students it would depart, confirmed or
// discarded after a confirmation step; and the recent full syncs with their outcome. The
// decision is the admin API's (which skips students pushed again since the sync finished).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import type { Services } from '../../services.ts';
import { ctx, institutionOf } from '../console.ts';
import { confirmed, formErrors, when } from '../forms.ts';

const Params = Type.Object({ slug: Type.String() });
const SyncParams = Type.Object({ slug: Type.String(), id: Type.String() });

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
  departing_students?: {
    id: string;
    email: string | null;
    student_id_ext: string | null;
    departed_at: string | null;
  }[];
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

  app.get('/:slug/full-syncs', { schema: { hide: true, params: Params } }, async (request) => {
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
  });

  const detail = async (
    request: FastifyRequest,
    id: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const c = ctx(request);
    const { api } = paths(request);
    const [sync, cohorts] = await Promise.all([
      c.api.get<FullSync>(`${api}/full-syncs/${encodeURIComponent(id)}`),
      cohortNames(request),
    ]);
    return c.render(
      'console/full-sync.eta',
      { title: `Full sync ${sync.sync_id}`, sync, cohort: cohorts[sync.cohort_id], when, ...extra },
      status,
    );
  };

  app.get('/:slug/full-syncs/:id', { schema: { hide: true, params: SyncParams } }, async (request) =>
    detail(request, request.params.id),
  );

  for (const action of ['confirm', 'discard'] as const) {
    app.post(
      `/:slug/full-syncs/:id/${action}`,
      { schema: { hide: true, params: SyncParams } },
      async (request, reply) => {
        const c = ctx(request);
        const { api, page } = paths(request);
        const id = request.params.id;
        const words = decisions[action];
        if (!confirmed(request.body)) {
          const sync = await c.api.get<FullSync>(`${api}/full-syncs/${encodeURIComponent(id)}`);
          const students = sync.departing_students ?? [];
          return c.render('console/confirm.eta', {
            title: words.title,
            message: `${words.message} Full sync ${sync.sync_id}: ${students.length} student${students.length === 1 ? '' : 's'}.`,
            details:
              action === 'confirm'
                ? students.slice(0, 20).map((s) => s.email ?? s.student_id_ext ?? s.id)
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
