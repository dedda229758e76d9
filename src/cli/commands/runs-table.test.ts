import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from '../output.ts';
import { changes, runIdFrom, runsTable } from './runs-table.ts';

const enrolmentsRun = {
  id: '6f1c2d4e-1111-4222-8333-444455556666',
  kind: 'enrolments',
  credential: 'roster_secret',
  trigger: 'push',
  cohort_id: null,
  sections: ['programs', 'campuses'],
  dry_run: true,
  received: 150000,
  counts: { programs: { created: 2, updated: 1, unchanged: 0 }, campuses: { created: 2, updated: 0 } },
  error_count: 12345,
  started_at: '2026-11-28T19:22:03.120Z',
  finished_at: '2026-11-28T19:22:04.000Z',
};

test('runs list fits an 80-column terminal, with no JSON in its cells', () => {
  const text = render(runsTable({ items: [enrolmentsRun], next_cursor: 'abc' }));
  for (const line of text.split('\n')) assert.ok(line.length <= 80, `${line.length}: ${line}`);
  assert.doesNotMatch(text, /[{}]/);
  assert.match(text, /6f1c2d4e\s+2026-11-28 19:22\s+enrolments \(dry\)\s+150,000\s+4\s+1\s+12,345/);
  assert.match(text, /next page: --cursor abc/);
});

test('created and updated add up flat and per-section counts', () => {
  assert.deepEqual(changes({ created: 3, updated: 4, imported: 7 }), { created: 3, updated: 4 });
  assert.deepEqual(changes(enrolmentsRun.counts), { created: 4, updated: 1 });
});

test('a run id prefix names the one run among the newest that starts with it', async () => {
  const newest = async () => ({
    items: [{ id: enrolmentsRun.id }, { id: '6f1c9999-0000-4000-8000-000000000000' }],
  });
  assert.equal(await runIdFrom('6f1c2d4e', newest), enrolmentsRun.id);
  assert.equal(await runIdFrom('6f1c', newest), '6f1c', 'two match: left as typed, the API answers 404');
  assert.equal(await runIdFrom(enrolmentsRun.id, async () => assert.fail('no lookup')), enrolmentsRun.id);
});
