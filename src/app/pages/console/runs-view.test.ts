import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Run } from '../../../domain/runs/schemas.ts';
import {
  chartDays,
  chartSpan,
  duration,
  fullSyncLabel,
  runCsvRows,
  runFilters,
  runsView,
  runView,
  toCsv,
} from './runs-view.ts';

const at = new Date('2026-03-04T10:00:00Z');
const run: Run = {
  id: 'r1',
  kind: 'roster',
  credential: 'institution_secret',
  trigger: 'push',
  cohort_id: null,
  sections: [],
  dry_run: false,
  received: 3,
  counts: { created: 1 },
  error_count: 2,
  started_at: at,
  finished_at: at,
  errors: [
    { row: 2, field: 'email', message: 'not an email' },
    { row: 3, message: '=cmd()' },
  ],
  errors_truncated: false,
  details: { warnings: ['cohort nearly empty'] },
};

test('the filters of a push-history URL: only values the form offers', () => {
  assert.deepEqual(runFilters({ kind: 'roster', day: '2026-03-04', errors: 'yes' }), {
    kind: 'roster',
    day: '2026-03-04',
    errors: true,
  });
  assert.deepEqual(runFilters({ kind: 'other', day: 'yesterday' }), {
    kind: undefined,
    day: undefined,
    errors: false,
  });
});

test('the chart: 30 days ending today, a day without runs drawn as zeros', () => {
  const span = chartSpan(new Date('2026-03-04T23:59:00Z'));
  assert.deepEqual(span, { from: '2026-02-03', to: '2026-03-04' });
  const days = chartDays(span.from, [
    { day: '2026-03-04', pushes: 2, created: 5, updated: 1, errors: 0, dry_runs: 1, dry_run_errors: 3 },
  ]);
  assert.equal(days.length, 30);
  assert.deepEqual(days[0], {
    day: '2026-02-03',
    pushes: 0,
    created: 0,
    updated: 0,
    errors: 0,
    dry_runs: 0,
    dry_run_errors: 0,
  });
  assert.equal(days[29].pushes, 2);
});

test("the push-history page's pager keeps the filters", () => {
  const view = runsView(
    { items: [run], paged: false },
    [],
    runFilters({ kind: 'roster', errors: 'yes' }),
    '/p',
  );
  assert.equal(view.self, '/p?kind=roster&errors=yes');
  assert.equal(runsView({ items: [], paged: false }, [], runFilters({}), '/p').self, '/p?');
  assert.equal(view.num('x'), 0);
});

test("a run's page and its CSV: a column per field of its errors, then its warnings, formula-safe", () => {
  const view = runView(run, '/p');
  assert.deepEqual(view.columns, ['row', 'field', 'message']);
  assert.deepEqual(view.warnings, ['cohort nearly empty']);
  assert.match(view.title, /^Roster push of 2026-03-04 10:00 UTC$/);
  // On the console, in the institution's zone.
  assert.equal(
    runView(run, '/p', () => '2026-03-04 21:00 Australia/Sydney').title,
    'Roster push of 2026-03-04 21:00 Australia/Sydney',
  );
  const csv = toCsv(runCsvRows(run), ['kind', 'row', 'message']);
  const lines = csv.trimEnd().split('\r\n');
  assert.equal(lines[0], 'kind,row,field,message');
  assert.equal(lines[2], "error,3,,'=cmd()");
  assert.equal(lines[3], 'warning,,,cohort nearly empty');
  assert.equal(toCsv([], ['kind', 'row', 'message']), 'kind,row,message\r\n');
});

test("a run's error columns: the row, the keys it was sent with, then what is wrong, whatever the stored order", () => {
  const stored = [
    { code: 'missing_field', email: null, message: 'm', row: 1, student_id_ext: 'S1' },
    { row: 2, extra: 1, email: 'a@x.edu', student_id_ext: null, code: 'invalid_field', field: 'email' },
  ];
  const view = runView({ ...run, errors: stored }, '/p');
  // The page says each error in words: the code is the CSV's.
  assert.deepEqual(view.columns, ['row', 'email', 'student_id_ext', 'field', 'message', 'extra']);
  assert.deepEqual(view.columns.map(view.columnLabel), [
    'Row',
    'Email',
    'Student ID',
    'Field',
    'Problem',
    'Extra',
  ]);
  const csv = toCsv(runCsvRows({ ...run, errors: stored, details: {} }));
  assert.equal(csv.split('\r\n')[0], 'kind,row,email,student_id_ext,code,field,message,extra');
  assert.equal(csv.split('\r\n')[1], 'error,1,,S1,missing_field,,m,');
});

test("a run's warnings as sentences, its duration, and a full sync's mark", () => {
  const warned: Run = {
    ...run,
    started_at: new Date('2026-03-04T10:00:00.000Z'),
    finished_at: new Date('2026-03-04T10:00:00.420Z'),
    counts: { created: 1, full_sync: { sync_id: 'n1', final_page: true, threshold: 0.1 } },
    details: {
      warnings: [
        { code: 'unknown_program_code', field: 'program_code', value: 'XYZ', rows: [4, 9], message: 'm' },
      ],
    },
  };
  const view = runView(warned, '/p');
  assert.deepEqual(view.warnings, [
    '2 rows name program code XYZ, which is not in your programs: rows 4, 9. ' +
      'They imported without a program (a stored one is kept).',
  ]);
  assert.equal(view.duration, '0.4 s');
  assert.equal(view.fullSync, 'the final page of the full sync n1');
  assert.equal(runView(run, '/p').fullSync, undefined);
  assert.match(
    toCsv(runCsvRows(warned)),
    /warning,,unknown_program_code,program_code,"2 rows name program code XYZ, which/,
  );
  assert.equal(duration('2026-03-04T10:00:00Z', '2026-03-04T10:00:42Z'), '42 s');
  assert.equal(duration('2026-03-04T10:00:00Z', '2026-03-04T10:03:05Z'), '3 min 5 s');
  assert.equal(fullSyncLabel({ full_sync: { final_page: false } }), 'full sync');
  assert.equal(fullSyncLabel({ created: 2 }), undefined);
});
