// Admin API: institutions, roster secrets and the console's read-only listings.
import { Type } from 'typebox';
import {
  createInstitution,
  institutionOrder,
  listInstitutions,
  updateInstitution,
} from '../../../domain/institutions/institutions.ts';
import {
  audienceTagOrder,
  campusOrder,
  getStudent,
  listAudienceTags,
  listCampuses,
  listPrograms,
  listStudents,
  programOrder,
  studentOrder,
} from '../../../domain/institutions/listings.ts';
import {
  ArchivedQuery,
  AudienceTag,
  Campus,
  Institution,
  InstitutionChangeBody,
  NewInstitutionBody,
  Program,
  Student,
} from '../../../domain/institutions/schemas.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionListingRoute, institutionRoute, listingReply } from '../route-helpers.ts';
import { CsvBody, CursorQuery, errorResponses, Page, SlugParams, Uuid } from '../schemas.ts';
import { adminArchiveRoutes } from './archiving.ts';
import { adminRosterSecretRoutes } from './roster-secret.ts';
import { StudentQuery, sendStudentsCsv, studentFilter } from './students-csv.ts';

export function adminInstitutionRoutes(app: App): void {
  const tags = ['admin'];

  app.post(
    '/admin/v1/institutions',
    adminRoute('operator', tags, {
      summary: 'Create an institution (tenant)',
      description:
        "A slug taken already is 409 `conflict` (field slug); a display name that looks like another institution's " +
        '(compared by its skeleton: case, spaces, invisible characters and lookalike letters of other scripts folded; ' +
        'docs/display-names.md) is 409 `institution_name_taken` (field name): the sign-in page lists institutions by ' +
        'name. A control or format character in it is 400 `invalid_field`.',
      body: NewInstitutionBody,
      response: { 201: Institution, ...errorResponses(400, 401, 409) },
    }),
    async (request, reply) => reply.status(201).send(await createInstitution(request.deps.db, request.body)),
  );

  app.get(
    '/admin/v1/institutions',
    adminRoute('operator', tags, {
      summary: 'List institutions',
      description:
        'Ordered by slug. Archived institutions are left out unless `archived` says otherwise ' +
        '(`true`: only them; `any`: every institution). Pass the same `archived` with the cursor.',
      querystring: Type.Intersect([CursorQuery, ArchivedQuery]),
      response: { 200: Page(Institution), ...errorResponses(400, 401) },
    }),
    async (request) =>
      listingReply(institutionOrder, request.query, (page) =>
        listInstitutions(request.deps.db, {
          ...page,
          archived: request.query.archived,
        }),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug',
    institutionRoute('read', tags, {
      summary: 'Read an institution',
      response: { 200: Institution, ...errorResponses(401, 404) },
    }),
    async (request) => institutionOf(request),
  );

  app.patch(
    '/admin/v1/institutions/:slug',
    institutionRoute('admin', tags, {
      summary: 'Rename an institution or set its time zone',
      description:
        "Admins and the operator. The time zone decides the students' days (docs/student-app.md); " +
        'an unknown zone is 400 invalid_field with field time_zone. Only the operator renames an institution ' +
        '(an admin sending another name: 403 `institution_name_operator_only`). A name that looks like another ' +
        "institution's (compared by its skeleton: case, spaces, invisible characters and lookalike letters of other " +
        'scripts folded; docs/display-names.md) is 409 `institution_name_taken`; a name holding a control or format ' +
        'character is 400 `invalid_field`. Fields not sent are kept.',
      body: InstitutionChangeBody,
      response: { 200: Institution, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) =>
      updateInstitution(request.deps.db, institutionOf(request).id, request.body, callerOf(request)),
  );

  adminRosterSecretRoutes(app);
  adminArchiveRoutes(app);
  listingRoutes(app);
  studentListingRoutes(app);
}

/** The read-only listings of an institution: programs, campuses and audience tags. */
function listingRoutes(app: App): void {
  const tags = ['admin'];

  institutionListingRoute(app, tags, {
    path: 'programs',
    summary: 'List programs',
    description: 'Ordered by code (case-insensitive).',
    item: Program,
    order: programOrder,
    list: listPrograms,
  });
  institutionListingRoute(app, tags, {
    path: 'campuses',
    summary: 'List campuses',
    description: 'Ordered by name (case-insensitive).',
    item: Campus,
    order: campusOrder,
    list: listCampuses,
  });
  institutionListingRoute(app, tags, {
    path: 'audience-tags',
    summary: 'List audience tags',
    description: 'Ordered by kind, then label (case-insensitive).',
    item: AudienceTag,
    order: audienceTagOrder,
    list: listAudienceTags,
  });
}

/** The institution's students: a page of the listing, one student, and the CSV export. */
function studentListingRoutes(app: App): void {
  const tags = ['admin'];

  app.get(
    '/admin/v1/institutions/:slug/students',
    institutionRoute('read', tags, {
      summary: 'List students',
      description:
        'Ordered by email (case-insensitive). The filters combine. `q` is a case-insensitive prefix of the ' +
        'email, the external id, the full name ("first last") or the last name: `q=ada` finds ada@…, ' +
        'Ada Lovelace and Grace Adams. `format=csv` (or GET …/students.csv) streams every matching student as CSV ' +
        'instead of a page.',
      querystring: Type.Intersect([
        CursorQuery,
        StudentQuery,
        Type.Object({
          format: Type.Optional(
            Type.Union([Type.Literal('json'), Type.Literal('csv')], {
              description: 'csv: the whole listing as text/csv (limit and cursor are ignored)',
            }),
          ),
        }),
      ]),
      response: { 200: Page(Student), ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) => {
      const institution = institutionOf(request);
      if (request.query.format === 'csv')
        return sendStudentsCsv(reply, request.deps.db, institution, studentFilter(request.query));
      return listingReply(studentOrder, request.query, (page) =>
        listStudents(request.deps.db, institution.id, {
          ...page,
          ...studentFilter(request.query),
        }),
      );
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/students/:id',
    adminRoute('read', tags, {
      summary: 'Read a student',
      description:
        "The student as the students listing shows them. Another institution's student is 404 " +
        'student_not_found, as an unknown id is.',
      params: Type.Intersect([SlugParams, Type.Object({ id: Uuid('Student id') })]),
      response: { 200: Student, ...errorResponses(400, 401, 404) },
    }),
    async (request) => getStudent(request.deps.db, institutionOf(request).id, request.params.id),
  );

  app.get(
    '/admin/v1/institutions/:slug/students.csv',
    institutionRoute('read', tags, {
      summary: 'Export students as CSV',
      description:
        'Every student matching the filters (as the students listing), ordered by email, streamed as ' +
        'RFC 4180 CSV with a header row. Cells starting with =, +, -, @, tab or carriage return are ' +
        "prefixed with ' so spreadsheets show them as text rather than run them as formulas.",
      querystring: StudentQuery,
      produces: ['text/csv'],
      response: { 200: CsvBody, ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) =>
      sendStudentsCsv(reply, request.deps.db, institutionOf(request), studentFilter(request.query)),
  );
}
