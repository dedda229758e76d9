// A student's page (staff and admins, as the students listing): who they are as the SIS pushed
// them, with their cohort's clock and start date, then their help requests (newest first, each
// linking to the inbox's request page) and their enrolments. Four domain reads, each by an
// index: the student by id, their cohort by id, a page of their requests (by student) and a page
// of their enrolments (by email). The requests page by their own cursor on this page; the
// enrolments link to the enrolments listing filtered by the student's email for the rest.
//
// The page calls the same domain functions as the admin API, with the request's institution.
import { Type } from 'typebox';
import { helpRequestOrder, listFilterOf } from '../../../domain/helpdesk/listing.ts';
import { listHelpRequests } from '../../../domain/helpdesk/requests.ts';
import { getCohort } from '../../../domain/institutions/institutions.ts';
import { getStudent } from '../../../domain/institutions/listings.ts';
import { recordAccess } from '../../../domain/privacy/access-log.ts';
import { listEnrolments } from '../../../domain/taxonomy/enrolment-listing.ts';
import type { App } from '../../types.ts';
import { ctx, ItemPageParams, institutionOf } from './context.ts';
import { studentView } from './data-student-view.ts';
import { CursorParam, readListing } from './listing.ts';

const StudentQuery = Type.Object({
  requests_cursor: CursorParam,
});

/** Rows of each list on the page. */
const PAGE_SIZE = 25;

export function dataStudentPageRoutes(app: App): void {
  app.get(
    '/:slug/students/:id',
    { config: { access: 'read' }, schema: { hide: true, params: ItemPageParams, querystring: StudentQuery } },
    async (request) => {
      const c = ctx(request);
      const institution = institutionOf(request);
      const { id } = request.params;
      // A malformed id is student_not_found, as an unknown one: the not-found page.
      const student = await getStudent(request.deps.db, institution.id, id);
      const [cohort, , requests, enrolments] = await Promise.all([
        getCohort(request.deps.db, institution.id, student.cohort_id),
        // Who looked (docs/privacy.md): one INSERT beside the page's reads.
        recordAccess(request.deps, c.caller, institution.id, 'student', { studentId: student.id }, 'console'),
        // Requests are the inbox's (`helpdesk`); a role that may read students but not the inbox
        // sees the rest of the page.
        c.may('helpdesk')
          ? readListing(
              helpRequestOrder,
              { cursor: request.query.requests_cursor, size: PAGE_SIZE },
              (page) =>
                listHelpRequests(
                  request.deps,
                  institution.id,
                  listFilterOf({ student_id: student.id }, c.caller, page),
                ),
            )
          : undefined,
        listEnrolments(request.deps.db, institution.id, { limit: PAGE_SIZE, email: student.email }),
      ]);
      const view = studentView(
        // The cohort's own page is an admin's (cohorts.ts).
        { student, cohort, requests, enrolments, cohortLink: c.may('admin') },
        institution.slug,
      );
      const privacy = c.may('admin');
      return c.render('console/data-student.eta', { ...view, privacy }, requests?.problem ? 400 : 200);
    },
  );
}
