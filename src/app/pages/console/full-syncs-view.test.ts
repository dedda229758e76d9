import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DepartingStudent, FullSyncListing } from '../../../domain/departures/schemas.ts';
import { cohortNames, decisionConfirmation, fullSyncsView, fullSyncView } from './full-syncs-view.ts';

const at = new Date('2026-03-04T10:00:00Z');
const sync: FullSyncListing = {
  id: 'f1',
  cohort_id: 'c1',
  sync_id: 'nightly-42',
  status: 'held',
  pages: 3,
  cohort_size: 100,
  departures: 25,
  threshold: 0.1,
  started_at: at,
  finished_at: at,
  decided_at: null,
  decided_by: null,
};
const student = (n: number): DepartingStudent => ({
  id: `s${n}`,
  email: n === 2 ? '' : `s${n}@example.edu`,
  student_id_ext: `S-${n}`,
  departed_at: null,
});

test('the full syncs page and a sync: cohorts named, the pager based on the sync’s page', () => {
  const cohorts = cohortNames([{ id: 'c1', name: 'Autumn 2026' }]);
  assert.deepEqual(fullSyncsView([sync], [sync], cohorts).cohorts, { c1: 'Autumn 2026' });
  const view = fullSyncView(sync, { items: [student(1)], paged: false }, cohorts, '/console/x/full-syncs/f1');
  assert.equal(view.title, 'Full sync nightly-42');
  assert.equal(view.cohort, 'Autumn 2026');
  assert.equal(view.self, '/console/x/full-syncs/f1');
  assert.equal(view.pageSize, 100);
});

test('confirming names the first students (by email, else external id) and how many more', () => {
  const asked = decisionConfirmation('confirm', sync, [student(1), student(2)], '/p/f1');
  assert.equal(asked.title, 'Depart these students?');
  assert.match(asked.message, /Full sync nightly-42: 25 students\.$/);
  assert.deepEqual(asked.details, ['s1@example.edu', 'S-2', 'and 23 more']);
  assert.equal(asked.action, '/p/f1/confirm');
  assert.equal(asked.back, '/p/f1');
  const discard = decisionConfirmation('discard', { ...sync, departures: 1 }, [student(1)], '/p/f1');
  assert.equal(discard.details, undefined);
  assert.match(discard.message, /: 1 student\.$/);
});
