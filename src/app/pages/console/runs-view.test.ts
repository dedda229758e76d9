import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Run } from '../../../domain/runs/schemas.ts';
import { chartDays, chartSpan, runCsvRows, runFilters, runsView, runView, toCsv } from './runs-view.ts';

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
  const days = chartDays(span.from, [{ day: '2026-03-04', pushes: 2, created: 5, updated: 1, errors: 0 }]);
  assert.equal(days.length, 30);
  assert.deepEqual(days[0], { day: '2026-02-03', pushes: 0, created: 0, updated: 0, errors: 0 });
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
