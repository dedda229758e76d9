// Admin API: the calendar, units and enrolments an institution's SIS pushed, read-only.
import { Type } from 'typebox';
import { listEnrolments } from '../../../domain/taxonomy/enrolment-listing.ts';
import {
  enrolmentOrder,
  listTerms,
  listUnits,
  termOrder,
  unitOrder,
} from '../../../domain/taxonomy/queries.ts';
import { Enrolment, EnrolmentFilters, Term, Unit, UnitFilters } from '../../../domain/taxonomy/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { CursorQuery, errorResponses, Page, pageOf, pageReply } from '../schemas.ts';

export function adminTaxonomyRoutes(app: App): void {
  const tags = ['admin'];

  app.get(
    '/admin/v1/institutions/:slug/terms',
    institutionRoute('read', tags, {
      summary: 'List terms of the teaching calendar',
      description: 'Ordered by start date, then code.',
      querystring: CursorQuery,
      response: { 200: Page(Term), ...errorResponses(400, 401, 404) },
    }),
    async (request) =>
      pageReply(
        termOrder,
        await listTerms(request.deps.db, institutionOf(request).id, pageOf(termOrder, request.query)),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/units',
    institutionRoute('read', tags, {
      summary: 'List units',
      description: 'Ordered by unit code; `program_code` keeps only the units of that program.',
      querystring: Type.Intersect([CursorQuery, UnitFilters]),
      response: { 200: Page(Unit), ...errorResponses(400, 401, 404) },
    }),
    async (request) => {
      const items = await listUnits(request.deps.db, institutionOf(request).id, {
        ...pageOf(unitOrder, request.query),
        programCode: request.query.program_code,
      });
      return pageReply(unitOrder, items);
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/enrolments',
    institutionRoute('read', tags, {
      summary: 'List enrolments',
      description:
        'Ordered by term (start date), unit code, then student email. Filters combine: `term_code`, `unit_code`, ' +
        '`email` (case-insensitive), `status`.',
      querystring: Type.Intersect([CursorQuery, EnrolmentFilters]),
      response: { 200: Page(Enrolment), ...errorResponses(400, 401, 404) },
    }),
    async (request) => {
      const items = await listEnrolments(request.deps.db, institutionOf(request).id, {
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
