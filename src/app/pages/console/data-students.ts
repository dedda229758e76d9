// Students (staff and admins, as the API's listings): search by name, email or external id,
// filters by cohort, program, campus and departed, cursor paging, and the CSV export of the same
// filters. A page costs the domain's keyset page (an index range scan, the same at row 0 and row
// 99,000) plus three short reads for the filter choices; nothing counts the whole institution.
// The export is the domain's CSV of the matching students, streamed as it is read, never held whole.
//
// Both call the same domain functions as the admin API, with the request's institution; the
// filters are checked with the API's own schema (a refusal is shown above the list, or as the
// error page for the export).
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { listCohorts } from '../../../domain/institutions/institutions.ts';
import {
  listCampuses,
  listPrograms,
  listStudents,
  studentOrder,
} from '../../../domain/institutions/listings.ts';
import { StudentQuery, studentFilter, studentsCsv } from '../../../domain/students/listing.ts';
import { ApiError } from '../../../errors.ts';
import type { App } from '../../types.ts';
import { checkForm } from '../form-check.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { studentFilterFields, studentFilters, studentsView } from './data-students-view.ts';
import { allOrNone, CursorParam, LooseFilter, readFilteredListing } from './listing.ts';

const StudentsQuery = Type.Object({
  q: LooseFilter(1000),
  cohort_id: LooseFilter(200),
  program: LooseFilter(1000),
  campus: LooseFilter(1000),
  status: LooseFilter(20),
  cursor: CursorParam,
});

export function dataStudentRoutes(app: App): void {
  app.get(
    '/:slug/students',
    { config: { access: 'read' }, schema: { hide: true, params: PageParams, querystring: StudentsQuery } },
    async (request) => {
      const institution = institutionOf(request);
      const { db } = request.deps;
      const filters = studentFilters(request.query);
      const [listing, cohorts, programs, campuses] = await Promise.all([
        readFilteredListing(
          { schema: StudentQuery, values: { ...filters }, fields: studentFilterFields },
          studentOrder,
          { cursor: request.query.cursor, size: 50 },
          (query, page) => listStudents(db, institution.id, { ...page, ...studentFilter(query) }),
        ),
        // Every cohort, archived ones too: their students stay and are listed as before.
        allOrNone((page) => listCohorts(db, institution.id, { ...page, archived: 'any' })),
        allOrNone((page) => listPrograms(db, institution.id, page)),
        allOrNone((page) => listCampuses(db, institution.id, page)),
      ]);
      const page = `/console/${institution.slug}/students`;
      return ctx(request).render(
        'console/data-students.eta',
        studentsView(listing, filters, { cohorts, programs, campuses }, page),
        listing.problem ? 400 : 200,
      );
    },
  );

  app.get(
    '/:slug/students.csv',
    { config: { access: 'read' }, schema: { hide: true, params: PageParams, querystring: StudentsQuery } },
    async (request, reply) => {
      const institution = institutionOf(request);
      const filters = exportFilters(request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${institution.slug}-students.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(studentsCsv(request.deps.db, institution.id, studentFilter(filters))));
    },
  );
}

/** The export's filters, checked with the listing's schema; a refusal is the error page (400). */
function exportFilters(query: Parameters<typeof studentFilters>[0]): StudentQuery {
  const given = Object.fromEntries(Object.entries(studentFilters(query)).filter(([, value]) => value));
  const checked = checkForm(StudentQuery, given, studentFilterFields);
  if (checked.ok) return checked.value;
  throw new ApiError('invalid_field', { detail: Object.values(checked.errors).join('. ') });
}
