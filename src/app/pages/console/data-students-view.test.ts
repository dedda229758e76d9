// The students listing and a student's page, over one fixture student.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cohort, StudentListing } from '../../../domain/institutions/schemas.ts';
import { StudentQuery } from '../../../domain/students/listing.ts';
import { checkForm } from '../form-check.ts';
import { studentView } from './data-student-view.ts';
import { studentFilterFields, studentFilters, studentsView } from './data-students-view.ts';

const at = new Date('2026-03-04T10:00:00Z');
const cohort: Cohort = {
  id: 'c1',
  institution_id: 'i',
  name: 'Autumn 2026',
  clock: 'cohort',
  start_date: '2026-09-07',
  created_at: at,
  archived_at: null,
};
const student: StudentListing = {
  id: 's1',
  cohort_id: 'c1',
  email: 'ada@example.edu',
  student_id_ext: 'S-ADA',
  first_name: 'Ada',
  last_name: 'Lovelace',
  program_code: 'BSCI',
  campus_name: null,
  first_in_family: null,
  start_date: null,
  departed_at: null,
  created_at: at.toISOString(),
  updated_at: at.toISOString(),
};

test('the filters of a students URL: trimmed, an empty one no filter', () => {
  assert.deepEqual(studentFilters({ q: ' ada ', cohort_id: '', status: 'active' }), {
    q: 'ada',
    cohort_id: undefined,
    program: undefined,
    campus: undefined,
    status: 'active',
  });
});

test('the filters are checked with the listing schema, every field in a sentence', () => {
  const checked = checkForm(StudentQuery, { cohort_id: 'nope', status: 'gone' }, studentFilterFields);
  assert.equal(checked.ok, false);
  assert.deepEqual(!checked.ok && Object.keys(checked.errors).sort(), ['cohort_id', 'status']);
  assert.equal(checkForm(StudentQuery, { q: 'ada', status: 'departed' }, studentFilterFields).ok, true);
});

test('the students page: the pager and the export carry the same filters; cohorts by name', () => {
  const filters = studentFilters({ q: 'ada', program: 'BSCI' });
  const view = studentsView(
    { items: [student], paged: false },
    filters,
    { cohorts: [cohort] },
    '/console/x/students',
  );
  assert.equal(view.self, '/console/x/students?q=ada&program=BSCI');
  assert.equal(view.csv, '/console/x/students.csv?q=ada&program=BSCI');
  assert.deepEqual(view.cohortNames, { c1: 'Autumn 2026' });
  assert.equal(view.programs, undefined, 'too many programs for one read: a text field');
  const plain = studentsView({ items: [], paged: false }, studentFilters({}), {}, '/console/x/students');
  assert.equal(plain.self, '/console/x/students?');
  assert.equal(plain.csv, '/console/x/students.csv');
});

test("a student's page: named by their name (else their email), the rest of their enrolments by email", () => {
  const data = {
    student,
    cohort,
    enrolments: { items: [], next: null },
    cohortLink: false,
  };
  const view = studentView(data, 'x');
  assert.equal(view.title, 'Ada Lovelace');
  assert.equal(view.self, '/console/x/students/s1');
  assert.equal(view.allEnrolments, '/console/x/enrolments?email=ada%40example.edu');
  assert.equal(view.requests, undefined);
  const unnamed = studentView({ ...data, student: { ...student, first_name: null, last_name: null } }, 'x');
  assert.equal(unnamed.title, 'ada@example.edu');
});

test("a student's page passes on their requests when the role reads them, and whether more enrolments follow", () => {
  const requests = {
    items: [],
    paged: true,
    problem: 'cursor: not a next_cursor of this listing (invalid_cursor)',
  };
  const view = studentView(
    { student, cohort, requests, enrolments: { items: [], next: ['x'] }, cohortLink: true },
    'x',
  );
  assert.equal(view.requests, requests);
  assert.equal(view.cohortLink, true);
  assert.ok(view.enrolments.next, 'the template links to all of their enrolments');
});
