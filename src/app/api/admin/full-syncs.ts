// Admin API: full syncs of a cohort's roster and their departures (applied or held).
import { Type } from 'typebox';
import {
  decideDepartures,
  decisionOf,
  departureOrder,
  fullSyncOrder,
  getFullSync,
  listDepartingStudents,
  listFullSyncs,
} from '../../../domain/departures/departures.ts';
import { Decision, DepartingStudent, FullSync, FullSyncStatus } from '../../../domain/departures/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionListingRoute, listingReply, listingSchema } from '../route-helpers.ts';
import { DisplayName, errorResponses, SlugParams } from '../schemas.ts';

const Params = Type.Intersect([SlugParams, Type.Object({ id: Type.String() })]);
const DecisionBody = Type.Object({
  actor: Type.Optional(
    DisplayName({ minLength: 1, maxLength: 200, description: 'Who decides; default "operator"' }),
  ),
});

export function adminFullSyncRoutes(app: App): void {
  const tags = ['admin'];

  institutionListingRoute(app, tags, {
    path: 'full-syncs',
    access: 'admin',
    summary: 'List full syncs (roster pushes with departures), newest first',
    item: FullSync,
    filters: Type.Object({ status: Type.Optional(FullSyncStatus) }),
    order: fullSyncOrder,
    list: (db, institutionId, page, query) =>
      listFullSyncs(db, institutionId, { ...page, status: query.status }),
  });

  app.get(
    '/admin/v1/institutions/:slug/full-syncs/:id',
    adminRoute('admin', tags, {
      summary: 'Read a full sync with the students it departs (or holds)',
      description:
        '`departing_students` lists every student the sync departs or holds (up to 10,000), by email. ' +
        'With `departing_students=false` it is left out: page through them with GET …/full-syncs/{id}/departures.',
      params: Params,
      querystring: Type.Object({
        departing_students: Type.Optional(
          Type.Boolean({
            default: true,
            description: 'false: leave out the departing students (the sync alone, one indexed read)',
          }),
        ),
      }),
      response: {
        200: Type.Object({
          ...FullSync.properties,
          departing_students: Type.Optional(Type.Array(DepartingStudent)),
        }),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (request) => {
      const institution = institutionOf(request);
      return getFullSync(request.deps.db, institution.id, request.params.id, {
        students: request.query.departing_students !== false,
      });
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/full-syncs/:id/departures',
    adminRoute('admin', tags, {
      summary: 'List the students a full sync departs (or holds), a page at a time',
      description:
        'Ordered by student id (the order of the departures themselves, so every page is an index range ' +
        "scan however deep). An unknown full sync, or another institution's, is 404 not_found.",
      params: Params,
      ...listingSchema(DepartingStudent),
    }),
    async (request) =>
      listingReply(departureOrder, request.query, (page) =>
        listDepartingStudents(request.deps.db, institutionOf(request).id, request.params.id, page),
      ),
  );

  decisionRoutes(app);
}

/** Confirming or discarding a held full sync's departures. */
function decisionRoutes(app: App): void {
  const tags = ['admin'];

  for (const action of ['confirm', 'discard'] as const) {
    app.post(
      `/admin/v1/institutions/:slug/full-syncs/:id/${action}`,
      adminRoute('admin', tags, {
        summary:
          action === 'confirm'
            ? 'Apply held departures (students pushed since the sync are skipped)'
            : 'Discard held departures: nobody is departed',
        params: Params,
        // The body is optional: a bare POST decides as "operator".
        body: Type.Union([DecisionBody, Type.Null(), Type.Undefined()]),
        response: {
          200: Decision,
          ...errorResponses(401, 404, 409),
        },
      }),
      async (request) => {
        const institution = institutionOf(request);
        const actor = request.body?.actor ?? 'operator';
        return decideDepartures(request.deps, institution.id, request.params.id, {
          status: decisionOf[action],
          actor,
        });
      },
    );
  }
}
