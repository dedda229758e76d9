// Admin API: privacy (docs/privacy.md). A student's export (found by id, email or SIS id; a POST
// so that an email never sits in a URL or a log line), the confirmation of an erasure and the
// erasure itself, the institution's retention periods, and the access log (who looked).
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { listAccess } from '../../../domain/privacy/access-log.ts';
import { eraseStudent } from '../../../domain/privacy/erasure.ts';
import { exportChunks, previewErasure, studentForExport } from '../../../domain/privacy/export.ts';
import { retentionPeriods, setRetentionPeriods } from '../../../domain/privacy/retention-settings.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { DateTime, errorResponses, Uuid } from '../schemas.ts';

const Lookup = Type.Object(
  {
    student_id: Type.Optional(Type.String({ maxLength: 100 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    student_id_ext: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const Counts = Type.Record(Type.String(), Type.Integer());
const Period = Type.Object({
  days: Type.Integer(),
  set: Type.Boolean({ description: 'false: the default applies' }),
  default: Type.Integer(),
  min: Type.Integer(),
  max: Type.Integer(),
  what: Type.String(),
});
const periodNames = [
  'resolved_requests_days',
  'departed_students_days',
  'run_errors_days',
  'webhook_bodies_days',
  'notifications_days',
  'access_log_days',
];
const Retention = Type.Object(Object.fromEntries(periodNames.map((n) => [n, Period])));
const RetentionBody = Type.Object(
  Object.fromEntries(
    periodNames.map((n) => [
      n,
      Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'days; null: the default' })),
    ]),
  ),
  { additionalProperties: false },
);

const tags = ['admin: privacy'];
const base = '/admin/v1/institutions/:slug';

export function adminPrivacyRoutes(app: App): void {
  exportAndErasureRoutes(app);
  retentionRoutes(app);
  accessLogRoutes(app);
}

/** A student's export, the confirmation of an erasure and the erasure. */
function exportAndErasureRoutes(app: App): void {
  app.post(
    `${base}/student-exports`,
    // A read, though a POST: an archived institution's students may still ask for their data.
    institutionRoute(
      'admin',
      tags,
      {
        summary: 'Export everything held about one student (GDPR art. 15), as one JSON document',
        description:
          'Name the student by `student_id`, `email` (any case) or `student_id_ext`. The answer (streamed) holds ' +
          'the student record, every help request with its timeline and events, enrolments, notifications, ' +
          'sign-in links, sessions, the reads (`reads`) and changes (`writes`) recorded about them, and push ' +
          'row errors naming them. The export is recorded in the access log and the admin audit.',
        body: Lookup,
        response: {
          200: Type.Unknown({ description: 'The export document (format ssp-student-export/1)' }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
      { whileArchived: true },
    ),
    async (request, reply) => {
      const institution = institutionOf(request);
      const { student_id: id, email, student_id_ext } = request.body;
      const lookup = { id, email, student_id_ext };
      const student = await studentForExport(request.deps, callerOf(request), institution.id, lookup, 'api');
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="student-${student.id}.json"`)
        .send(Readable.from(exportChunks(request.deps, institution, student)));
    },
  );

  app.get(
    `${base}/students/:id/erasure`,
    adminRoute('admin', tags, {
      summary: 'What erasing a student would remove (the confirmation)',
      params: Type.Object({ slug: Type.String(), id: Type.String({ maxLength: 100 }) }),
      response: {
        200: Type.Object({ student_id: Uuid(), email: Type.String(), removes: Counts }),
        ...errorResponses(401, 403, 404),
      },
    }),
    async (request) => {
      const { student, removes } = await previewErasure(
        request.deps.db,
        institutionOf(request).id,
        request.params.id,
      );
      return { student_id: student.id, email: student.email, removes };
    },
  );

  app.post(
    `${base}/erasures`,
    institutionRoute('admin', tags, {
      summary: 'Erase a student (GDPR art. 17): irreversible, idempotent',
      description:
        'Removes the student and their personal data everywhere docs/privacy.md names; their help requests stay ' +
        'without their words, so statistics still count them. A `student.erased` webhook event tells receivers to ' +
        'erase too. Erasing an erased student again answers 200 with `already_erased: true`. The admin audit ' +
        'records who erased a student, not whom.',
      body: Type.Object({ student_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
      response: {
        200: Type.Object({
          erasure_id: Uuid(),
          already_erased: Type.Boolean(),
          help_request_ids: Type.Array(Uuid()),
          removed: Counts,
        }),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (request) =>
      eraseStudent(request.deps, institutionOf(request).id, request.body.student_id, callerOf(request).actor),
  );
}

/** The institution's retention periods. */
function retentionRoutes(app: App): void {
  app.get(
    `${base}/retention`,
    institutionRoute('admin', tags, {
      summary: 'Retention periods in force, with their defaults, floors and ceilings',
      response: { 200: Retention, ...errorResponses(401, 403, 404) },
    }),
    async (request) => retentionPeriods(request.deps.db, institutionOf(request).id),
  );

  app.patch(
    `${base}/retention`,
    institutionRoute('admin', tags, {
      summary: 'Change retention periods (days; null returns one to its default)',
      description:
        'A period outside its floor and ceiling is 400 invalid_field naming it, with `min` and `max`.',
      body: RetentionBody,
      response: { 200: Retention, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => {
      const id = institutionOf(request).id;
      await setRetentionPeriods(request.deps, id, request.body as Record<string, unknown>);
      return retentionPeriods(request.deps.db, id);
    },
  );
}

/** Who looked: the access log. */
function accessLogRoutes(app: App): void {
  app.get(
    `${base}/access-log`,
    institutionRoute('admin', tags, {
      summary: 'Who opened a help request, a student page or an export, newest first',
      querystring: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        before: Type.Optional(Type.Integer({ minimum: 1, description: 'The last id of the previous page' })),
      }),
      response: {
        200: Type.Object({
          items: Type.Array(
            Type.Object({
              id: Type.Integer(),
              actor_kind: Type.String(),
              actor: Type.String(),
              what: Type.String(),
              help_request_id: Type.Union([Uuid(), Type.Null()]),
              student_id: Type.Union([Uuid(), Type.Null()]),
              surface: Type.String(),
              at: DateTime(),
            }),
          ),
        }),
        ...errorResponses(401, 403, 404),
      },
    }),
    async (request) => ({
      items: await listAccess(request.deps.db, institutionOf(request).id, {
        limit: request.query.limit ?? 100,
        before: request.query.before,
      }),
    }),
  );
}
