import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countsView, runTotals } from './run-counts.ts';

const section = (created: number, updated: number, unchanged = 0) => ({
  received: created + updated + unchanged,
  created,
  updated,
  unchanged,
  rejected: 0,
});

test("an enrolments push's totals are its sections' sums", () => {
  assert.deepEqual(runTotals({ programs: section(2, 0), campuses: section(2, 1, 3) }), {
    created: 4,
    updated: 1,
    unchanged: 3,
  });
});

test("a roster push's identical rows are unchanged, not updated", () => {
  assert.deepEqual(runTotals({ created: 0, updated: 5, imported: 5, unchanged: 5 }), {
    created: 0,
    updated: 0,
    unchanged: 5,
  });
  // Runs recorded before `unchanged` was kept: what they said.
  assert.deepEqual(runTotals({ created: 1, updated: 2 }), { created: 1, updated: 2 });
  // A dry run: what it would have done.
  assert.deepEqual(runTotals({ created: 0, updated: 0, would_create: 3, would_update: 1 }), {
    created: 3,
    updated: 1,
  });
});

test("a run's page: a table row per section, in push order, and the rest as facts in words", () => {
  const view = countsView({ campuses: section(2, 0), programs: section(2, 0), mode: 'full' });
  assert.deepEqual(view.table, {
    caption: 'Sections',
    columns: ['Received', 'Created', 'Updated', 'Unchanged', 'Rejected'],
    rows: [
      { name: 'Programs', cells: [2, 2, 0, 0, 0] },
      { name: 'Campuses', cells: [2, 2, 0, 0, 0] },
    ],
  });
  assert.deepEqual(view.facts, [{ label: 'Mode', value: 'full' }]);
  const roster = countsView({ created: 1, updated: 5, imported: 6, unchanged: 4 });
  assert.deepEqual(roster.table?.rows, [{ name: 'Students', cells: [1, 1, 4] }]);
  assert.deepEqual(roster.table?.columns, ['Created', 'Updated', 'Unchanged']);
  const pull = countsView({ fetched: { users: 12, classes: 2 }, created: 1, updated: 0 });
  assert.deepEqual(pull.facts, [{ label: 'Fetched', value: 'users: 12, classes: 2' }]);
});
