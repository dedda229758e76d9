// Admin API: an institution's cohorts and their clock and start date (the student pages count
// the six weeks from it: docs/student-app.md).
import { Type } from 'typebox';
import { cohortOrder } from '../../../domain/institutions/service.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminSecurity,
  CursorQuery,
  DateTime,
  errorResponses,
  Page,
  pageOf,
  pageReply,
  SlugParams,
  Text,
  Uuid,
} from '../schemas.ts';

const Cohort = Type.Object({
  id: Uuid(),
  institution_id: Uuid(),
  name: Type.String(),
  clock: Type.Union([Type.Literal('cohort'), Type.Literal('individual')]),
  start_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description:
      "First day of the cohort's six weeks (cohort clock); null until set. An individual cohort ignores it.",
  }),
  created_at: DateTime(),
});

const ClockSchema = Type.Union([Type.Literal('cohort'), Type.Literal('individual')], {
  description:
    'cohort: one shared start (start_date); individual: each student starts on their own start_date',
});
const StartDate = Type.Union([Type.String({ maxLength: 10, description: 'YYYY-MM-DD' }), Type.Null()], {
  description:
    'First day of the six weeks for a cohort-clock cohort (YYYY-MM-DD); null clears it. The student pages ' +
    'count weeks from it (docs/student-app.md).',
});

const CohortParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Cohort id') })]);

export function adminCohortRoutes(app: App, services: Services): void {
  const { institutions } = services;
  const tags = ['admin'];
  const security = adminSecurity;

  app.post(
    '/admin/v1/institutions/:slug/cohorts',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Create a cohort',
        params: SlugParams,
        body: Type.Object({
          name: Text({ minLength: 1, maxLength: 200 }),
          clock: Type.Optional(ClockSchema),
          start_date: Type.Optional(StartDate),
        }),
        response: { 201: Cohort, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        await institutions.createCohort(institutionOf(request).id, {
          name: request.body.name,
          clock: request.body.clock ?? 'cohort',
          startDate: request.body.start_date,
        }),
      ),
  );

  app.patch(
    '/admin/v1/institutions/:slug/cohorts/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Change a cohort: name, clock or start date',
        description:
          'Fields left out stay as they are; start_date null clears it. Changing the start date moves every ' +
          "student's six weeks of a cohort-clock cohort at once.",
        params: CohortParams,
        body: Type.Object({
          name: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
          clock: Type.Optional(ClockSchema),
          start_date: Type.Optional(StartDate),
        }),
        response: { 200: Cohort, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      institutions.updateCohort(institutionOf(request).id, request.params.id, {
        name: request.body.name,
        clock: request.body.clock,
        startDate: request.body.start_date,
      }),
  );

  app.get(
    '/admin/v1/institutions/:slug/cohorts/:id',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Read a cohort',
        params: CohortParams,
        response: { 200: Cohort, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => institutions.getCohort(institutionOf(request).id, request.params.id),
  );

  app.get(
    '/admin/v1/institutions/:slug/cohorts',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List cohorts',
        description: 'Oldest first.',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: Page(Cohort), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        cohortOrder,
        await institutions.listCohorts(institutionOf(request).id, pageOf(cohortOrder, request.query)),
      ),
  );
}
