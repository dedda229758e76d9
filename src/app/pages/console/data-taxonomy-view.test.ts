import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TermListing } from '../../../domain/taxonomy/queries.ts';
import { dataFilters, dataListView } from './data-taxonomy-view.ts';

const term: TermListing = {
  id: 't',
  term_code: '2026-S1',
  name: 'Semester 1',
  start_date: '2026-02-23',
  end_date: '2026-06-19',
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-01T00:00:00Z'),
};

test("a data page's filters: trimmed, an empty one no filter, only the page's own", () => {
  assert.deepEqual(dataFilters(['term_code', 'status'], { term_code: ' 2026-S1 ', status: '', other: 'x' }), {
    term_code: '2026-S1',
    status: undefined,
  });
});

test("a data page: the listing, the filters as filled in, and the pager's base with them", () => {
  const listing = { items: [term], paged: false };
  const view = dataListView('Terms', listing, { term_code: '2026-S1' }, '/console/x/enrolments');
  assert.equal(view.title, 'Terms');
  assert.equal(view.listing, listing);
  assert.equal(view.self, '/console/x/enrolments?term_code=2026-S1');
  assert.equal(dataListView('Terms', listing, {}, '/console/x/terms').self, '/console/x/terms?');
  assert.ok(view.statuses.includes('withdrawn'));
});
