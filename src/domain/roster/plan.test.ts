import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changes, type MatchRow, plan, unmatched } from './plan.ts';
import type { RosterRow } from './rows.ts';

const COHORT = 'c0000000-0000-4000-8000-000000000001';

function row(n: number, fields: Partial<RosterRow> = {}): RosterRow {
  return { row: n, email: `s${n}@example.edu`, student_id_ext: `S${n}`, ...fields };
}

/** What the match query answers for a row that matched nothing. */
function noMatch(r: RosterRow, fields: Partial<MatchRow> = {}): MatchRow {
  return {
    ord: r.row,
    email_key: r.email.toLowerCase(),
    email_student_id: null,
    ext_student_id: null,
    program_id: null,
    campus_id: null,
    cur_cohort_id: null,
    cur_email: null,
    cur_ext: null,
    cur_first_name: null,
    cur_last_name: null,
    cur_program_id: null,
    cur_campus_id: null,
    cur_first_in_family: null,
    cur_start_date: null,
    cur_departed_at: null,
    ...fields,
  };
}

test('new rows are planned as creates, matched rows as updates of their student', () => {
  const rows = [row(0), row(1)];
  const matches = [noMatch(rows[0]), noMatch(rows[1], { email_student_id: 'st-1' })];
  const { errors, planned } = plan(rows, matches);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    planned.map((p) => [p.row.row, p.studentId]),
    [
      [0, undefined],
      [1, 'st-1'],
    ],
  );
});

test('a repeated email or student_id_ext is an error naming the first row, and listed as a duplicate', () => {
  const rows = [row(0), row(1, { email: 'S0@example.edu' }), row(2, { student_id_ext: 'S0' })];
  const { errors, planned, duplicateEmails, duplicateExts } = plan(
    rows,
    rows.map((r) => noMatch(r)),
  );
  assert.deepEqual(
    planned.map((p) => p.row.row),
    [0],
  );
  assert.deepEqual(
    errors.map((e) => [e.row, e.email, e.student_id_ext, e.code, e.field]),
    [
      [1, 'S0@example.edu', 'S1', 'duplicate_key', 'email'],
      [2, 's2@example.edu', 'S0', 'duplicate_key', 'student_id_ext'],
    ],
  );
  assert.deepEqual([...duplicateEmails.values()], [{ value: 's0@example.edu', rows: [0, 1] }]);
  assert.deepEqual([...duplicateExts.values()], [{ value: 'S0', rows: [0, 2] }]);
});

test('a row whose email and student_id_ext name two students is a conflict; two rows on one student too', () => {
  const rows = [row(0), row(1), row(2)];
  const matches = [
    noMatch(rows[0], { email_student_id: 'st-a', ext_student_id: 'st-b' }),
    noMatch(rows[1], { ext_student_id: 'st-c' }),
    noMatch(rows[2], { email_student_id: 'st-c' }),
  ];
  const { errors, planned } = plan(rows, matches);
  assert.deepEqual(
    errors.map((e) => [e.row, e.email, e.student_id_ext, e.code, e.field]),
    [
      [0, 's0@example.edu', 'S0', 'student_conflict', 'student_id_ext'],
      [2, 's2@example.edu', 'S2', 'duplicate_student', 'email'],
    ],
  );
  assert.deepEqual(
    planned.map((p) => p.studentId),
    ['st-c'],
  );
});

test('unmatched program codes and campus values are one warning per value, case-insensitive', () => {
  const rows = [
    row(0, { program_code: 'BSC', campus_name: 'North' }),
    row(1, { program_code: 'bsc' }),
    row(2, { program_code: 'BA', campus_code: 'N1' }),
  ];
  const matches = [
    noMatch(rows[0]),
    noMatch(rows[1]),
    noMatch(rows[2], { program_id: 'p-ba', campus_id: 'c-n1' }),
  ];
  const warnings = unmatched(plan(rows, matches).planned);
  assert.deepEqual(
    warnings.map((w) => [w.code, w.field, w.value, w.rows]),
    [
      ['unknown_program_code', 'program_code', 'BSC', [0, 1]],
      ['unknown_campus', 'campus_name', 'North', [0]],
    ],
  );
});

test('an update changes nothing when every sent value is already stored', () => {
  const r = row(0, { first_name: 'Ada', start_date: '2026-02-01' });
  const stored = noMatch(r, {
    email_student_id: 'st-1',
    cur_cohort_id: COHORT,
    cur_email: r.email,
    cur_ext: r.student_id_ext,
    cur_first_name: 'Ada',
    cur_start_date: '2026-02-01',
  });
  assert.equal(changes({ row: r, match: stored, studentId: 'st-1' }, COHORT), false);
  assert.equal(
    changes({ row: { ...r, first_name: 'Grace' }, match: stored, studentId: 'st-1' }, COHORT),
    true,
  );
  assert.equal(changes({ row: r, match: stored, studentId: 'st-1' }, 'another-cohort'), true);
  const departed = { ...stored, cur_departed_at: new Date('2026-01-01T00:00:00Z') };
  assert.equal(changes({ row: r, match: departed, studentId: 'st-1' }, COHORT), true);
});
