// Full syncs (admins): held departures, each with the students it would depart, confirmed or
// discarded after a confirmation step; and the recent full syncs with their outcome. The
// decision is the domain's (which skips students pushed again since the sync finished).
// A sync's page reads the sync alone and one page of its departing students (keyset-paged), so
// it costs the same for 10 departures as for 10,000.
//
// Every page calls the full syncs' domain functions with the request's institution, as the
// admin API does; a decision is recorded under the signed-in person's name.
import type { FastifyRequest } from 'fastify';
import {
  decideDepartures,
  decisionOf,
  departureOrder,
  getFullSync,
  listDepartingStudents,
  listFullSyncs,
} from '../../../domain/departures/departures.ts';
import { listCohorts } from '../../../domain/institutions/institutions.ts';
import type { App } from '../../types.ts';
import { ctx, ItemPageParams, institutionOf, PageParams } from './context.ts';
import { confirmed, refusalOf } from './forms.ts';
import {
  cohortNames,
  decisionConfirmation,
  decisions,
  fullSyncsView,
  fullSyncView,
  NAMED_IN_CONFIRMATION,
  PAGE_SIZE,
} from './full-syncs-view.ts';
import { CursorQuery, readListing } from './listing.ts';

/** Cohorts named on the pages (an institution has a handful). */
const MAX_COHORTS = 200;

export function fullSyncRoutes(app: App): void {
  const pageOf = (request: FastifyRequest, id?: string) => {
    const page = `/console/${institutionOf(request).slug}/full-syncs`;
    return id ? `${page}/${encodeURIComponent(id)}` : page;
  };
  const cohortsOf = async (request: FastifyRequest, institutionId: string) =>
    cohortNames(
      (await listCohorts(request.deps.db, institutionId, { limit: MAX_COHORTS, archived: 'any' })).items,
    );

  app.get(
    '/:slug/full-syncs',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams } },
    async (request) => {
      const institutionId = institutionOf(request).id;
      const [held, recent, cohorts] = await Promise.all([
        listFullSyncs(request.deps.db, institutionId, { status: 'held', limit: 100 }),
        listFullSyncs(request.deps.db, institutionId, { limit: 20 }),
        cohortsOf(request, institutionId),
      ]);
      return ctx(request).render('console/full-syncs.eta', fullSyncsView(held.items, recent.items, cohorts));
    },
  );

  /** A sync's page: the sync alone, then a page of its departing students by the URL's cursor. */
  const detail = async (
    request: FastifyRequest,
    id: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const institutionId = institutionOf(request).id;
    const cursor = (request.query as { cursor?: string } | undefined)?.cursor;
    const [sync, cohorts] = await Promise.all([
      getFullSync(request.deps.db, institutionId, id, { students: false }),
      cohortsOf(request, institutionId),
    ]);
    const students = await readListing(departureOrder, { cursor, size: PAGE_SIZE }, (page) =>
      listDepartingStudents(request.deps.db, institutionId, id, page),
    );
    return ctx(request).render(
      'console/full-sync.eta',
      { ...fullSyncView(sync, students, cohorts, pageOf(request, id)), ...extra },
      students.problem ? 400 : status,
    );
  };

  app.get(
    '/:slug/full-syncs/:id',
    { config: { access: 'admin' }, schema: { hide: true, params: ItemPageParams, querystring: CursorQuery } },
    async (request) => detail(request, request.params.id),
  );

  for (const action of ['confirm', 'discard'] as const) {
    app.post(
      `/:slug/full-syncs/:id/${action}`,
      {
        config: { access: 'admin', formFields: ['confirmed'] },
        schema: { hide: true, params: ItemPageParams },
      },
      async (request, reply) => {
        const c = ctx(request);
        const institutionId = institutionOf(request).id;
        const id = request.params.id;
        if (!confirmed(request.body)) {
          // Asking first changes nothing: no audit entry for it.
          request.unchanged = true;
          const [sync, first] = await Promise.all([
            getFullSync(request.deps.db, institutionId, id, { students: false }),
            listDepartingStudents(request.deps.db, institutionId, id, { limit: NAMED_IN_CONFIRMATION }),
          ]);
          return c.render(
            'console/confirm.eta',
            decisionConfirmation(action, sync, first.items, pageOf(request, id)),
          );
        }
        try {
          await decideDepartures(request.deps, institutionId, id, {
            status: decisionOf[action],
            actor: c.caller.actor,
          });
        } catch (error) {
          const refused = refusalOf(error, []);
          return detail(request, id, refused, refused.status);
        }
        return reply.redirect(`${pageOf(request)}?done=${decisions[action].done}`, 303);
      },
    );
  }
}
