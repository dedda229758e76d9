// The data an institution's SIS pushed, read-only (staff and admins, as the API's listings):
// programs, terms, units and enrolments, each a page of the API's keyset listing with its
// filters. Each page is one API read (cursor paging), so it costs the same on the last page as
// on the first. Cohorts have pages of their own (cohorts.ts), where admins set start dates.
import { Type } from 'typebox';
import { enrolmentStatuses } from '../../../domain/taxonomy/rows.ts';
import { MAX_CURSOR_LENGTH } from '../../../lib/cursor.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { query } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { when } from './forms.ts';
import { listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String() });
// Loose on purpose: the API judges the values and the page shows its refusal above the list.
const Loose = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

interface DataPage {
  /** The console's address under /console/{slug}/ and the API's listing under the institution. */
  path: string;
  api: string;
  title: string;
  template: string;
  /** Query parameters passed on to the API as filters. */
  filters: readonly string[];
  /** Rows per page. */
  size?: number;
}

const dataPages: readonly DataPage[] = [
  { path: 'programs', api: 'programs', title: 'Programs', template: 'data-programs', filters: [] },
  { path: 'terms', api: 'terms', title: 'Terms', template: 'data-terms', filters: [] },
  { path: 'units', api: 'units', title: 'Units', template: 'data-units', filters: ['program_code'] },
  {
    path: 'enrolments',
    api: 'enrolments',
    title: 'Enrolments',
    template: 'data-enrolments',
    filters: ['term_code', 'unit_code', 'email', 'status'],
  },
];

export function dataTaxonomyRoutes(app: App, _services: Services): void {
  for (const page of dataPages) {
    const querystring = Type.Object({
      cursor: Loose(MAX_CURSOR_LENGTH),
      ...Object.fromEntries(page.filters.map((name) => [name, Loose(1000)])),
    });
    app.get(
      `/:slug/${page.path}`,
      { config: { access: 'read' }, schema: { hide: true, params: Params, querystring } },
      async (request) => {
        const c = ctx(request);
        const slug = institutionOf(request).slug;
        const q = request.query as Record<string, string | undefined>;
        const filters = Object.fromEntries(page.filters.map((name) => [name, q[name]?.trim() || undefined]));
        const listing = await listPage(c.api, `/admin/v1/institutions/${slug}/${page.api}`, filters, {
          cursor: q.cursor,
          size: page.size ?? 50,
        });
        const self = `/console/${slug}/${page.path}${query(filters) || '?'}`;
        return c.render(
          `console/${page.template}.eta`,
          { title: page.title, listing, filters, self, statuses: enrolmentStatuses, when },
          listing.problem ? 400 : 200,
        );
      },
    );
  }
}
