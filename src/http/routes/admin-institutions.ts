// Admin API: institutions, cohorts, roster secrets and the console's read-only listings.
import { Type } from 'typebox';
import type { Services } from '../../services.ts';
import { institutionOf } from '../plugins/admin-scope.ts';
import {
  adminSecurity,
  DateTime,
  errorResponses,
  PageQuery,
  page,
  SlugParams,
  Text,
  Uuid,
} from '../schemas.ts';
import type { App } from '../types.ts';

const Institution = Type.Object({
  id: Uuid(),
  slug: Type.String(),
  name: Type.String(),
  created_at: DateTime(),
});

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

const List = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ items: Type.Array(item), limit: Type.Integer(), offset: Type.Integer() });

const Row = Type.Record(Type.String(), Type.Unknown());

export function adminInstitutionRoutes(app: App, services: Services): void {
  const { institutions, rosterSecrets } = services;
  const tags = ['admin'];
  const security = adminSecurity;

  app.post(
    '/admin/v1/institutions',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Create an institution (tenant)',
        body: Type.Object({
          slug: Type.String({
            pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
            description: 'Lower-case key used by feeds',
          }),
          name: Text({ minLength: 1, maxLength: 200 }),
        }),
        response: { 201: Institution, ...errorResponses(400, 401, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await institutions.create(request.body)),
  );

  app.get(
    '/admin/v1/institutions',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'List institutions',
        querystring: PageQuery,
        response: { 200: List(Institution), ...errorResponses(401) },
      },
    },
    async (request) => ({ items: await institutions.list(page(request.query)), ...page(request.query) }),
  );

  app.get(
    '/admin/v1/institutions/:slug',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Read an institution',
        params: SlugParams,
        response: { 200: Institution, ...errorResponses(401, 404) },
      },
    },
    async (request) => institutionOf(request),
  );

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
        params: Type.Intersect([SlugParams, Type.Object({ id: Uuid('Cohort id') })]),
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
    '/admin/v1/institutions/:slug/cohorts',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List cohorts',
        params: SlugParams,
        querystring: PageQuery,
        response: { 200: List(Cohort), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      items: await institutions.listCohorts(institutionOf(request).id, page(request.query)),
      ...page(request.query),
    }),
  );

  const SecretStatus = Type.Object({
    state: Type.Union([
      Type.Literal('active'),
      Type.Literal('revoked'),
      Type.Literal('bootstrap'),
      Type.Literal('not_configured'),
    ]),
    issued_at: Type.Optional(DateTime()),
    rotate_by: Type.Optional(
      DateTime('Issue a new secret (coordinated with the operator) by then: 90 days after issue'),
    ),
    revoked_at: Type.Optional(DateTime()),
  });

  app.post(
    '/admin/v1/institutions/:slug/roster-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Issue the roster feed secret (replaces any active one)',
        description:
          'Returns the plaintext secret once; only its SHA-256 is stored. Issuing again revokes the previous secret at once.',
        params: SlugParams,
        response: {
          201: Type.Object({
            secret: Type.String({ description: 'Shown once; cannot be read back' }),
            institution: Type.String(),
            created_at: DateTime(),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request, reply) => {
      const institution = institutionOf(request);
      return reply.status(201).send(await rosterSecrets.issue(institution.id, institution.slug));
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/roster-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Roster feed secret status',
        params: SlugParams,
        response: { 200: SecretStatus, ...errorResponses(401, 404) },
      },
    },
    async (request) => rosterSecrets.status(institutionOf(request).id),
  );

  app.delete(
    '/admin/v1/institutions/:slug/roster-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Revoke the roster feed secret: the feed closes, with no fallback to the bootstrap secret',
        params: SlugParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const institution = institutionOf(request);
      const revoked = await rosterSecrets.revoke(institution.id);
      if (!revoked) return reply.status(404).send({ error: 'not_found', detail: 'no active roster secret' });
      return reply.status(204).send(null);
    },
  );

  const listing = (
    path: string,
    summary: string,
    load: (institutionId: string, p: ReturnType<typeof page>) => Promise<Record<string, unknown>[]>,
  ) =>
    app.get(
      `/admin/v1/institutions/:slug/${path}`,
      {
        config: { access: 'read' },
        schema: {
          tags,
          security,
          summary,
          params: SlugParams,
          querystring: PageQuery,
          response: { 200: List(Row), ...errorResponses(401, 404) },
        },
      },
      async (request) => ({
        items: await load(institutionOf(request).id, page(request.query)),
        ...page(request.query),
      }),
    );

  listing('programs', 'List programs', institutions.listPrograms);
  listing('campuses', 'List campuses', institutions.listCampuses);
  listing('audience-tags', 'List audience tags', institutions.listAudienceTags);

  app.get(
    '/admin/v1/institutions/:slug/students',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List students',
        params: SlugParams,
        querystring: Type.Intersect([
          PageQuery,
          Type.Object({
            cohort_id: Type.Optional(Uuid('Only this cohort')),
            email: Type.Optional(Text({ description: 'Exact email, case-insensitive' })),
            status: Type.Optional(
              Type.Union([Type.Literal('active'), Type.Literal('departed')], {
                description: 'active: not departed; departed: marked departed by a full sync',
              }),
            ),
          }),
        ]),
        response: { 200: List(Row), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      items: await institutions.listStudents(institutionOf(request).id, {
        ...page(request.query),
        cohortId: request.query.cohort_id,
        email: request.query.email,
        status: request.query.status,
      }),
      ...page(request.query),
    }),
  );
}
