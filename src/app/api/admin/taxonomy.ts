// Admin API: the calendar, units and enrolments an institution's SIS pushed, read-only.
import { listEnrolments } from '../../../domain/taxonomy/enrolment-listing.ts';
import * as taxonomy from '../../../domain/taxonomy/queries.ts';
import { Enrolment, EnrolmentFilters, Term, Unit, UnitFilters } from '../../../domain/taxonomy/schemas.ts';
import type { App } from '../../types.ts';
import { institutionListingRoute } from '../route-helpers.ts';

export function adminTaxonomyRoutes(app: App): void {
  const tags = ['admin'];

  institutionListingRoute(app, tags, {
    path: 'terms',
    summary: 'List terms of the teaching calendar',
    description: 'Ordered by start date, then code.',
    item: Term,
    order: taxonomy.termOrder,
    list: taxonomy.listTerms,
  });

  institutionListingRoute(app, tags, {
    path: 'units',
    summary: 'List units',
    description: 'Ordered by unit code; `program_code` keeps only the units of that program.',
    item: Unit,
    filters: UnitFilters,
    order: taxonomy.unitOrder,
    list: (db, institutionId, page, query) =>
      taxonomy.listUnits(db, institutionId, { ...page, programCode: query.program_code }),
  });
  institutionListingRoute(app, tags, {
    path: 'enrolments',
    summary: 'List enrolments',
    description:
      'Ordered by term (start date), unit code, then student email. Filters combine: `term_code`, `unit_code`, ' +
      '`email` (case-insensitive), `status`.',
    item: Enrolment,
    filters: EnrolmentFilters,
    order: taxonomy.enrolmentOrder,
    list: (db, institutionId, page, query) =>
      listEnrolments(db, institutionId, {
        ...page,
        termCode: query.term_code,
        unitCode: query.unit_code,
        email: query.email,
        status: query.status,
      }),
  });
}
