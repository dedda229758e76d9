// Students (staff and admins, as the API's listings): search by name, email or external id,
// filters by cohort, program, campus and departed, cursor paging, and the CSV export of the same
// filters. A page costs the API's keyset page (an index range scan, the same at row 0 and row
// 99,000) plus three short reads for the filter choices; nothing counts the whole institution.
// The export is the API's students.csv passed through as it is written, never held whole.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { StudentListing } from '../../../domain/institutions/service.ts';
import { MAX_CURSOR_LENGTH } from '../../../lib/cursor.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { type ConsoleApi, query } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { when } from './forms.ts';
import { listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String() });
// Loose on purpose: the API judges the values and the page shows its refusal next to the list,
// so the limits here only keep absurd URLs out.
const Loose = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const StudentsQuery = Type.Object({
  q: Loose(1000),
  cohort_id: Loose(200),
  program: Loose(1000),
  campus: Loose(1000),
  status: Loose(20),
  cursor: Loose(MAX_CURSOR_LENGTH),
});

/** A row of the API's students listing. */
type Student = StudentListing;

/** The choices of a filter: every value when they fit in one read, else none (a text field). */
async function choices<T>(api: ConsoleApi, url: string): Promise<T[] | undefined> {
  const page = await api.get<{ items: T[]; next_cursor: string | null }>(`${url}?limit=1000`);
  return page.next_cursor ? undefined : page.items;
}

function filtersOf(q: {
  q?: string;
  cohort_id?: string;
  program?: string;
  campus?: string;
  status?: string;
}) {
  const trim = (value?: string) => value?.trim() || undefined;
  return {
    q: trim(q.q),
    cohort_id: trim(q.cohort_id),
    program: trim(q.program),
    campus: trim(q.campus),
    status: trim(q.status),
  };
}

export function dataStudentRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}`, page: `/console/${slug}/students` };
  };

  app.get(
    '/:slug/students',
    { config: { access: 'read' }, schema: { hide: true, params: Params, querystring: StudentsQuery } },
    async (request) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      const filters = filtersOf(request.query);
      const [listing, cohorts, programs, campuses] = await Promise.all([
        listPage<Student>(c.api, `${api}/students`, filters, { cursor: request.query.cursor }),
        choices<{ id: string; name: string }>(c.api, `${api}/cohorts`),
        choices<{ program_code: string; name: string | null }>(c.api, `${api}/programs`),
        choices<{ name: string }>(c.api, `${api}/campuses`),
      ]);
      const search = query(filters);
      return c.render(
        'console/data-students.eta',
        {
          title: 'Students',
          listing,
          filters,
          cohorts,
          cohortNames: Object.fromEntries((cohorts ?? []).map((cohort) => [cohort.id, cohort.name])),
          programs,
          campuses,
          self: `${page}${search || '?'}`,
          csv: `${page}.csv${search}`,
          when,
        },
        listing.problem ? 400 : 200,
      );
    },
  );

  app.get(
    '/:slug/students.csv',
    { config: { access: 'read' }, schema: { hide: true, params: Params, querystring: StudentsQuery } },
    async (request, reply) => {
      const c = ctx(request);
      const { api } = paths(request);
      const { headers, body } = await c.api.stream(`${api}/students.csv${query(filtersOf(request.query))}`);
      return reply
        .type(String(headers['content-type'] ?? 'text/csv; charset=utf-8'))
        .header('content-disposition', String(headers['content-disposition'] ?? 'attachment'))
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
