// Admin API: institutions, roster secrets and the console's read-only listings.
import { Type } from 'typebox';
import {
  audienceTagOrder,
  campusOrder,
  institutionOrder,
  programOrder,
  studentOrder,
} from '../../../domain/institutions/service.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminSecurity,
  CsvBody,
  CursorQuery,
  DateTime,
  errorResponses,
  Nullable,
  Page,
  pageOf,
  pageReply,
  Slug,
  SlugParams,
  Text,
  Uuid,
} from '../schemas.ts';
import { StudentQuery, sendStudentsCsv, studentFilter } from './students-csv.ts';

const Institution = Type.Object({
  id: Uuid(),
  slug: Type.String(),
  name: Type.String(),
  time_zone: Type.String({
    description:
      "IANA time zone the student pages count days in: a student's today, their six weeks and the times they read",
  }),
  created_at: DateTime(),
});

const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'An IANA time zone, e.g. Australia/Sydney (default UTC); stored by its canonical name',
});

const Student = Type.Object({
  id: Uuid(),
  cohort_id: Uuid(),
  email: Type.String(),
  student_id_ext: Type.String({ description: 'The id the SIS knows the student by' }),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  program_code: Nullable(Type.String()),
  campus_name: Nullable(Type.String()),
  first_in_family: Nullable(Type.Boolean()),
  start_date: Nullable(Type.String({ format: 'date' })),
  departed_at: Nullable(
    DateTime('Set when a full sync departed the student; cleared when a push names them again'),
  ),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const Program = Type.Object({
  id: Uuid(),
  program_code: Type.String(),
  name: Nullable(Type.String()),
  coordinator_name: Nullable(Type.String()),
  coordinator_title: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const Campus = Type.Object({
  id: Uuid(),
  name: Type.String(),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const AudienceTag = Type.Object({
  id: Uuid(),
  kind: Type.Union([Type.Literal('program'), Type.Literal('campus')]),
  source_id: Uuid('The program or campus the tag was created with'),
  label: Type.String(),
  created_at: DateTime(),
});

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
          slug: Slug('Lower-case key used by feeds'),
          name: Text({ minLength: 1, maxLength: 200 }),
          time_zone: Type.Optional(TimeZone),
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
        description: 'Ordered by slug.',
        querystring: CursorQuery,
        response: { 200: Page(Institution), ...errorResponses(400, 401) },
      },
    },
    async (request) =>
      pageReply(institutionOrder, await institutions.list(pageOf(institutionOrder, request.query))),
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

  app.patch(
    '/admin/v1/institutions/:slug',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Rename an institution or set its time zone',
        description:
          "Admins and the operator. The time zone decides the students' days (docs/student-app.md); " +
          'an unknown zone is 400 invalid_field with field time_zone. Fields not sent are kept.',
        params: SlugParams,
        body: Type.Object({
          name: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
          time_zone: Type.Optional(TimeZone),
        }),
        response: { 200: Institution, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => institutions.update(institutionOf(request).id, request.body),
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

  app.get(
    '/admin/v1/institutions/:slug/programs',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List programs',
        description: 'Ordered by code (case-insensitive).',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: Page(Program), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        programOrder,
        await institutions.listPrograms(institutionOf(request).id, pageOf(programOrder, request.query)),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/campuses',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List campuses',
        description: 'Ordered by name (case-insensitive).',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: Page(Campus), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        campusOrder,
        await institutions.listCampuses(institutionOf(request).id, pageOf(campusOrder, request.query)),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/audience-tags',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List audience tags',
        description: 'Ordered by kind, then label (case-insensitive).',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: Page(AudienceTag), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        audienceTagOrder,
        await institutions.listAudienceTags(
          institutionOf(request).id,
          pageOf(audienceTagOrder, request.query),
        ),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/students',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List students',
        description:
          'Ordered by email (case-insensitive). The filters combine. `q` is a case-insensitive prefix of the ' +
          'email, the external id, the full name ("first last") or the last name: `q=ada` finds ada@…, ' +
          'Ada Lovelace and Grace Adams. `format=csv` (or GET …/students.csv) streams every matching student as CSV ' +
          'instead of a page.',
        params: SlugParams,
        querystring: Type.Intersect([
          CursorQuery,
          StudentQuery,
          Type.Object({
            format: Type.Optional(
              Type.Union([Type.Literal('json'), Type.Literal('csv')], {
                description: 'csv: the whole listing as text/csv (limit and cursor are ignored)',
              }),
            ),
          }),
        ]),
        response: { 200: Page(Student), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const institution = institutionOf(request);
      if (request.query.format === 'csv')
        return sendStudentsCsv(reply, institutions, institution, studentFilter(request.query));
      return pageReply(
        studentOrder,
        await institutions.listStudents(institution.id, {
          ...pageOf(studentOrder, request.query),
          ...studentFilter(request.query),
        }),
      );
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/students/:id',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Read a student',
        description:
          "The student as the students listing shows them. Another institution's student is 404 " +
          'student_not_found, as an unknown id is.',
        params: Type.Intersect([SlugParams, Type.Object({ id: Uuid('Student id') })]),
        response: { 200: Student, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => institutions.getStudent(institutionOf(request).id, request.params.id),
  );

  app.get(
    '/admin/v1/institutions/:slug/students.csv',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Export students as CSV',
        description:
          'Every student matching the filters (as the students listing), ordered by email, streamed as ' +
          'RFC 4180 CSV with a header row. Cells starting with =, +, -, @, tab or carriage return are ' +
          "prefixed with ' so spreadsheets show them as text rather than run them as formulas.",
        params: SlugParams,
        querystring: StudentQuery,
        produces: ['text/csv'],
        response: { 200: CsvBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendStudentsCsv(reply, institutions, institutionOf(request), studentFilter(request.query)),
  );
}
