// A student's page (staff and admins, as the students listing): who they are as the SIS pushed
// them, with their cohort's clock and start date, then their help requests (newest first, each
// linking to the inbox's request page) and their enrolments. Four admin API reads, each by an
// index: the student by id, their cohort by id, a page of their requests (`student_id`) and a
// page of their enrolments (`email`). The requests page by their own cursor on this page; the
// enrolments link to the enrolments listing filtered by the student's email for the rest.
import { Type } from 'typebox';
import type { StudentListing } from '../../../domain/institutions/service.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { pageId, query } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { when } from './forms.ts';
import { CursorParam, listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String(), id: Type.String() });
const StudentQuery = Type.Object({
  requests_cursor: CursorParam,
});

/** Rows of each list on the page. */
const PAGE_SIZE = 25;

/** A student as the API answers them (GET …/students/{id}). */
type Student = StudentListing;

interface Cohort {
  id: string;
  name: string;
  clock: 'cohort' | 'individual';
  start_date: string | null;
}

interface HelpRequest {
  id: string;
  status: string;
  priority: string;
  category: string | null;
  summary: string | null;
  assigned_to: string | null;
  created_at: string;
  updated_at: string;
}

interface Enrolment {
  id: string;
  unit_code: string;
  term_code: string;
  status: string;
  updated_at: string;
}

export function dataStudentPageRoutes(app: App, _services: Services): void {
  app.get(
    '/:slug/students/:id',
    { config: { access: 'read' }, schema: { hide: true, params: Params, querystring: StudentQuery } },
    async (request) => {
      const c = ctx(request);
      const { slug } = institutionOf(request);
      const { id } = request.params;
      const api = `/admin/v1/institutions/${slug}`;
      const page = `/console/${slug}/students/${id}`;
      pageId(id, { error: 'student_not_found', detail: 'no such student' });
      const student = await c.api.get<Student>(`${api}/students/${id}`);
      const [cohort, requests, enrolments] = await Promise.all([
        c.api.get<Cohort>(`${api}/cohorts/${student.cohort_id}`),
        // Requests are the inbox's (`helpdesk`); a role that may read students but not the inbox
        // sees the rest of the page.
        c.may('helpdesk')
          ? listPage<HelpRequest>(
              c.api,
              `${api}/help-requests`,
              { student_id: id },
              { cursor: request.query.requests_cursor, size: PAGE_SIZE },
            )
          : undefined,
        c.api.get<{ items: Enrolment[]; next_cursor: string | null }>(
          `${api}/enrolments${query({ email: student.email, limit: PAGE_SIZE })}`,
        ),
      ]);
      const name = [student.first_name, student.last_name].filter(Boolean).join(' ');
      return c.render(
        'console/data-student.eta',
        {
          title: name || student.email,
          name,
          student,
          cohort,
          // The cohort's own page is an admin's (cohorts.ts).
          cohortLink: c.may('admin'),
          requests,
          enrolments,
          self: page,
          allEnrolments: `/console/${slug}/enrolments${query({ email: student.email })}`,
          when,
        },
        requests?.problem ? 400 : 200,
      );
    },
  );
}
