// Admin API: the calendar, units and enrolments an institution's SIS pushed, read-only.
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
import {
  filteredListingSchema,
  institutionListingRoute,
  institutionRoute,
  listingReply,
} from '../route-helpers.ts';

export function adminTaxonomyRoutes(app: App): void {
  const tags = ['admin'];

  institutionListingRoute(app, tags, {
    path: 'terms',
    summary: 'List terms of the teaching calendar',
    description: 'Ordered by start date, then code.',
    item: Term,
    order: termOrder,
    list: listTerms,
  });

  app.get(
    '/admin/v1/institutions/:slug/units',
    institutionRoute('read', tags, {
      summary: 'List units',
      description: 'Ordered by unit code; `program_code` keeps only the units of that program.',
      ...filteredListingSchema(Unit, UnitFilters),
    }),
    async (request) =>
      listingReply(unitOrder, request.query, (page) =>
        listUnits(request.deps.db, institutionOf(request).id, {
          ...page,
          programCode: request.query.program_code,
        }),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/enrolments',
    institutionRoute('read', tags, {
      summary: 'List enrolments',
      description:
        'Ordered by term (start date), unit code, then student email. Filters combine: `term_code`, `unit_code`, ' +
        '`email` (case-insensitive), `status`.',
      ...filteredListingSchema(Enrolment, EnrolmentFilters),
    }),
    async (request) =>
      listingReply(enrolmentOrder, request.query, (page) =>
        listEnrolments(request.deps.db, institutionOf(request).id, {
          ...page,
          termCode: request.query.term_code,
          unitCode: request.query.unit_code,
          email: request.query.email,
          status: request.query.status,
        }),
      ),
  );
}
