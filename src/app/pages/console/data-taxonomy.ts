// The data an institution's SIS pushed, read-only (staff and admins, as the API's listings):
// programs, terms, units and enrolments, each a page of the domain's keyset listing with its
// filters. Each page is one listing read (cursor paging), so it costs the same on the last page
// as on the first. Cohorts have pages of their own (cohorts.ts), where admins set start dates.
//
// Every page calls the same domain listing the admin API does, with the request's institution;
// the filters are checked with the API's own schemas and a refusal is shown above the list.

import { type TSchema, Type } from 'typebox';
import type { Db } from '../../../db/db.ts';
import type { KeysetPage, Paged } from '../../../db/keyset.ts';
import { listPrograms, programOrder } from '../../../domain/institutions/listings.ts';
import { listEnrolments } from '../../../domain/taxonomy/enrolment-listing.ts';
import {
  enrolmentOrder,
  listTerms,
  listUnits,
  termOrder,
  unitOrder,
} from '../../../domain/taxonomy/queries.ts';
import { EnrolmentFilters, UnitFilters } from '../../../domain/taxonomy/schemas.ts';
import type { KeysetOrder } from '../../../lib/cursor.ts';
import type { App } from '../../types.ts';
import type { FieldText } from '../form-check.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { dataFilters, dataListView } from './data-taxonomy-view.ts';
import { CursorParam, LooseFilter, readFilteredListing } from './listing.ts';

const NoFilters = Type.Object({});

type Filter = Record<string, string | undefined>;

interface DataPage {
  /** The console's address under /console/{slug}/. */
  path: string;
  title: string;
  template: string;
  order: KeysetOrder;
  /** The listing's filters: the schema the API takes them with, and the form's labels. */
  schema: TSchema;
  fields: Record<string, FieldText>;
  read: (db: Db, institutionId: string, filter: Filter, page: KeysetPage) => Promise<Paged<unknown>>;
}

const dataPages: readonly DataPage[] = [
  {
    path: 'programs',
    title: 'Programs',
    template: 'data-programs',
    order: programOrder,
    schema: NoFilters,
    fields: {},
    read: (db, institutionId, _filter, page) => listPrograms(db, institutionId, page),
  },
  {
    path: 'terms',
    title: 'Terms',
    template: 'data-terms',
    order: termOrder,
    schema: NoFilters,
    fields: {},
    read: (db, institutionId, _filter, page) => listTerms(db, institutionId, page),
  },
  {
    path: 'units',
    title: 'Units',
    template: 'data-units',
    order: unitOrder,
    schema: UnitFilters,
    fields: { program_code: { label: 'Program code' } },
    read: (db, institutionId, filter, page) =>
      listUnits(db, institutionId, { ...page, programCode: filter.program_code }),
  },
  {
    path: 'enrolments',
    title: 'Enrolments',
    template: 'data-enrolments',
    order: enrolmentOrder,
    schema: EnrolmentFilters,
    fields: {
      term_code: { label: 'Term code' },
      unit_code: { label: 'Unit code' },
      email: { label: 'Student email' },
      status: { label: 'Status' },
    },
    read: (db, institutionId, filter, page) =>
      listEnrolments(db, institutionId, {
        ...page,
        termCode: filter.term_code,
        unitCode: filter.unit_code,
        email: filter.email,
        status: filter.status,
      }),
  },
];

export function dataTaxonomyRoutes(app: App): void {
  for (const page of dataPages) {
    const names = Object.keys(page.fields);
    const querystring = Type.Object({
      cursor: CursorParam,
      ...Object.fromEntries(names.map((name) => [name, LooseFilter(1000)])),
    });
    app.get(
      `/:slug/${page.path}`,
      { config: { access: 'read' }, schema: { hide: true, params: PageParams, querystring } },
      async (request) => {
        const institution = institutionOf(request);
        const q = request.query as Record<string, string | undefined>;
        const filters = dataFilters(names, q);
        const listing = await readFilteredListing(
          { schema: page.schema, values: filters, fields: page.fields },
          page.order,
          { cursor: q.cursor, size: 50 },
          (filter, keyset) => page.read(request.deps.db, institution.id, filter as Filter, keyset),
        );
        const view = dataListView(page.title, listing, filters, `/console/${institution.slug}/${page.path}`);
        return ctx(request).render(`console/${page.template}.eta`, view, listing.problem ? 400 : 200);
      },
    );
  }
}
