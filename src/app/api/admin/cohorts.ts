// Admin API: an institution's cohorts and their clock and start date (the student pages count
// the six weeks from it: docs/student-app.md).
import { Type } from 'typebox';
import {
  cohortOrder,
  createCohort,
  getCohort,
  listCohorts,
  updateCohort,
} from '../../../domain/institutions/institutions.ts';
import {
  ArchivedQuery,
  Cohort,
  CohortChangeBody,
  NewCohortBody,
} from '../../../domain/institutions/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionListingRoute, institutionRoute } from '../route-helpers.ts';
import { errorResponses, SlugParams, Uuid } from '../schemas.ts';

export const CohortParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Cohort id') })]);

export function adminCohortRoutes(app: App): void {
  const tags = ['admin'];

  app.post(
    '/admin/v1/institutions/:slug/cohorts',
    institutionRoute('admin', tags, {
      summary: 'Create a cohort',
      body: NewCohortBody,
      response: { 201: Cohort, ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) =>
      reply.status(201).send(
        await createCohort(request.deps.db, institutionOf(request).id, {
          name: request.body.name,
          clock: request.body.clock ?? 'cohort',
          startDate: request.body.start_date,
        }),
      ),
  );

  app.patch(
    '/admin/v1/institutions/:slug/cohorts/:id',
    adminRoute('admin', tags, {
      summary: 'Change a cohort: name, clock or start date',
      description:
        'Fields left out stay as they are; start_date null clears it. Changing the start date moves every ' +
        "student's six weeks of a cohort-clock cohort at once.",
      params: CohortParams,
      body: CohortChangeBody,
      response: { 200: Cohort, ...errorResponses(400, 401, 404) },
    }),
    async (request) =>
      updateCohort(request.deps.db, institutionOf(request).id, request.params.id, {
        name: request.body.name,
        clock: request.body.clock,
        startDate: request.body.start_date,
      }),
  );

  app.get(
    '/admin/v1/institutions/:slug/cohorts/:id',
    adminRoute('read', tags, {
      summary: 'Read a cohort',
      params: CohortParams,
      response: { 200: Cohort, ...errorResponses(400, 401, 404) },
    }),
    async (request) => getCohort(request.deps.db, institutionOf(request).id, request.params.id),
  );

  institutionListingRoute(app, tags, {
    path: 'cohorts',
    summary: 'List cohorts',
    description:
      'Oldest first. Archived cohorts are left out unless `archived` says otherwise (`true`: only them; ' +
      '`any`: every cohort); their students stay in the students listing either way.',
    item: Cohort,
    filters: ArchivedQuery,
    order: cohortOrder,
    list: (db, institutionId, page, query) =>
      listCohorts(db, institutionId, { ...page, archived: query.archived }),
  });
}
