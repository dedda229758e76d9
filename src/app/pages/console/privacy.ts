// Privacy pages (admins; docs/privacy.md): a student's export (a readable page and the JSON
// download), the confirmation and the erasure of a student, and the institution's retention
// periods with the last retention run and the recent erasures. The pages call the privacy area's
// functions with the request's institution, as the admin API does.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { listAccess } from '../../../domain/privacy/access-log.ts';
import { eraseStudent } from '../../../domain/privacy/erasure.ts';
import {
  exportChunks,
  exportDocument,
  previewErasure,
  studentForExport,
} from '../../../domain/privacy/export.ts';
import {
  latestRetentionRun,
  listRecentErasures,
  retentionPeriods,
  setRetentionPeriods,
} from '../../../domain/privacy/retention-settings.ts';
import { ApiError } from '../../../errors.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { text } from './forms.ts';
import { removedWords, retentionFields, retentionForm } from './privacy-view.ts';

const StudentParams = Type.Object({ slug: Type.String(), id: Type.String({ maxLength: 100 }) });

const admin = { access: 'admin' as const };

export function privacyRoutes(app: App): void {
  exportPages(app);
  erasurePages(app);
  retentionPages(app);
}

/** The student of a page's path, their export recorded in the access log. */
async function exportedStudent(request: FastifyRequest<{ Params: { id: string } }>) {
  const institution = institutionOf(request);
  const { caller } = ctx(request);
  const by = { id: request.params.id };
  const student = await studentForExport(request.deps, caller, institution.id, by, 'console');
  return { institution, student };
}

/** A student's export: the readable page and the JSON download. */
function exportPages(app: App): void {
  app.get(
    '/:slug/students/:id/export',
    { config: admin, schema: { hide: true, params: StudentParams } },
    async (request) => {
      const { institution, student } = await exportedStudent(request);
      const doc = await exportDocument(request.deps, institution, student);
      return ctx(request).render('console/student-export.eta', { doc, student });
    },
  );

  app.get(
    '/:slug/students/:id/export.json',
    { config: admin, schema: { hide: true, params: StudentParams } },
    async (request, reply) => {
      const { institution, student } = await exportedStudent(request);
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="student-${student.id}.json"`)
        .send(Readable.from(exportChunks(request.deps, institution, student)));
    },
  );
}

/** The confirmation of a student's erasure, and the erasure. */
function erasurePages(app: App): void {
  app.get(
    '/:slug/students/:id/erase',
    { config: admin, schema: { hide: true, params: StudentParams } },
    async (request) => {
      const institution = institutionOf(request);
      const preview = await previewErasure(request.deps.db, institution.id, request.params.id);
      const c = ctx(request);
      return c.render('console/student-erase.eta', { ...preview, actor: c.caller.actor, errors: {} });
    },
  );

  // The erasure is posted to a path that names no student (the id is in the form): the admin
  // audit records the path, and must say that a student was erased, not whom.
  app.post(
    '/:slug/erasures',
    {
      config: { ...admin, formFields: ['student_id', 'confirmed'] },
      schema: { hide: true, params: PageParams },
    },
    async (request, reply) => {
      const c = ctx(request);
      const institution = institutionOf(request);
      const id = text(request.body, 'student_id');
      if (text(request.body, 'confirmed') !== 'yes') {
        const preview = await previewErasure(request.deps.db, institution.id, id);
        const errors = { confirmed: 'Tick the box to confirm that this cannot be undone' };
        return c.render('console/student-erase.eta', { ...preview, actor: c.caller.actor, errors }, 400);
      }
      await eraseStudent(request.deps, institution.id, id, c.caller.actor);
      return reply.redirect(`/console/${institution.slug}/students?done=student_erased`, 303);
    },
  );
}

/** The retention page's data: the periods, the last run and the recent erasures. */
async function settingsPage(request: FastifyRequest) {
  const { db } = request.deps;
  const { id, slug } = institutionOf(request);
  const [periods, lastRun, erasures] = await Promise.all([
    retentionPeriods(db, id),
    latestRetentionRun(db, id),
    listRecentErasures(db, id),
  ]);
  return { periods, lastRun, erasures, removedWords, action: `/console/${slug}/privacy` };
}

/** The institution's retention periods, with the last retention run and the recent erasures. */
function retentionPages(app: App): void {
  app.get(
    '/:slug/privacy',
    { config: admin, schema: { hide: true, params: PageParams } },
    async (request) => {
      const view = await settingsPage(request);
      return ctx(request).render('console/privacy.eta', { ...view, values: {}, errors: {} });
    },
  );

  app.post(
    '/:slug/privacy',
    { config: { ...admin, formFields: retentionFields }, schema: { hide: true, params: PageParams } },
    async (request, reply) => {
      const c = ctx(request);
      const institution = institutionOf(request);
      const { values, input, errors } = retentionForm(request.body);
      if (Object.keys(errors).length === 0) {
        try {
          await setRetentionPeriods(request.deps, institution.id, input);
          return reply.redirect(`/console/${institution.slug}/privacy?done=retention_saved`, 303);
        } catch (error) {
          if (!(error instanceof ApiError) || typeof error.extra.field !== 'string') throw error;
          const { min, max } = error.extra;
          errors[error.extra.field] =
            `Enter a whole number of days from ${min} to ${max}, or leave it empty for the default`;
        }
      }
      const view = await settingsPage(request);
      return c.render('console/privacy.eta', { ...view, values, errors }, 400);
    },
  );
}

const ViewsQuery = Type.Object({ before: Type.Optional(Type.String({ maxLength: 20 })) });

/** The audit's reads: who opened a request, a student's page or an export, newest first. */
export function accessLogRoutes(app: App): void {
  app.get(
    '/:slug/audit/views',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams, querystring: ViewsQuery } },
    async (request) => {
      const institution = institutionOf(request);
      const raw = request.query.before;
      const before = raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
      const items = await listAccess(request.deps.db, institution.id, { limit: 100, before });
      const next = items.length === 100 ? items[items.length - 1].id : undefined;
      return ctx(request).render('console/access-log.eta', { items, next });
    },
  );
}
