// Admin API: the calendar, units and enrolments an institution's SIS pushed, read-only.
import { Type } from 'typebox';
import { enrolmentStatuses } from '../../../domain/taxonomy/rows.ts';
import { enrolmentOrder, termOrder, unitOrder } from '../../../domain/taxonomy/service.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminSecurity,
  CursorQuery,
  DateTime,
  errorResponses,
  Nullable,
  Page,
  pageOf,
  pageReply,
  SlugParams,
  Text,
  Uuid,
} from '../schemas.ts';

const Term = Type.Object({
  id: Uuid(),
  term_code: Type.String(),
  name: Nullable(Type.String()),
  start_date: Type.String({ format: 'date' }),
  end_date: Type.String({ format: 'date' }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const Unit = Type.Object({
  id: Uuid(),
  unit_code: Type.String(),
  name: Nullable(Type.String()),
  program_code: Nullable(Type.String()),
  campus_name: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const Enrolment = Type.Object({
  id: Uuid(),
  email: Type.String(),
  student_id_ext: Type.String(),
  unit_code: Type.String(),
  term_code: Type.String(),
  status: Type.String({ enum: [...enrolmentStatuses] }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export function adminTaxonomyRoutes(app: App, services: Services): void {
  const { taxonomy } = services;
  const tags = ['admin'];
  const security = adminSecurity;

  app.get(
    '/admin/v1/institutions/:slug/terms',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List terms of the teaching calendar',
        description: 'Ordered by start date, then code.',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: Page(Term), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        termOrder,
        await taxonomy.listTerms(institutionOf(request).id, pageOf(termOrder, request.query)),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/units',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List units',
        description: 'Ordered by unit code; `program_code` keeps only the units of that program.',
        params: SlugParams,
        querystring: Type.Intersect([
          CursorQuery,
          Type.Object({ program_code: Type.Optional(Text({ description: 'Only this program' })) }),
        ]),
        response: { 200: Page(Unit), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const items = await taxonomy.listUnits(institutionOf(request).id, {
        ...pageOf(unitOrder, request.query),
        programCode: request.query.program_code,
      });
      return pageReply(unitOrder, items);
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/enrolments',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List enrolments',
        description:
          'Ordered by term (start date), unit code, then student email. Filters combine: `term_code`, `unit_code`, ' +
          '`email` (case-insensitive), `status`.',
        params: SlugParams,
        querystring: Type.Intersect([
          CursorQuery,
          Type.Object({
            term_code: Type.Optional(Text({ description: 'Only this term' })),
            unit_code: Type.Optional(Text({ description: 'Only this unit' })),
            email: Type.Optional(Text({ description: 'Only this student' })),
            status: Type.Optional(
              Type.String({ enum: [...enrolmentStatuses], description: 'Only this status' }),
            ),
          }),
        ]),
        response: { 200: Page(Enrolment), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const items = await taxonomy.listEnrolments(institutionOf(request).id, {
        ...pageOf(enrolmentOrder, request.query),
        termCode: request.query.term_code,
        unitCode: request.query.unit_code,
        email: request.query.email,
        status: request.query.status,
      });
      return pageReply(enrolmentOrder, items);
    },
  );
}
