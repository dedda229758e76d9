import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cohort, StudentListing } from '../../../domain/institutions/schemas.ts';
import { studentView } from './data-student-view.ts';

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
