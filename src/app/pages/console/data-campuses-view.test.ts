import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MergeBody } from '../../../domain/campuses/schemas.ts';
import type { CampusListing } from '../../../domain/institutions/schemas.ts';
import { checkForm } from '../form-check.ts';
import { campusesView, mergeConfirmation, mergeFields, mergeValues } from './data-campuses-view.ts';

const at = new Date('2026-03-04T10:00:00Z');
const campus = (id: string, name: string): CampusListing => ({ id, name, created_at: at, updated_at: at });
const choices = [campus('n1', 'North'), campus('n2', 'Northern')];

test('the campuses page: the merge form only for those who may merge, empty to start', () => {
  const listing = { items: choices, paged: false };
  const view = campusesView(listing, [], { may: true, choices }, '/console/x/campuses');
  assert.equal(view.mayMerge, true);
  assert.equal(view.choices, choices);
  assert.deepEqual(view.values, { from: '', into: '' });
  assert.equal(view.self, '/console/x/campuses?');
  assert.equal(campusesView(listing, [], { may: false }, '/p').mayMerge, false);
});

test('the merge form: both campuses asked for at once, in sentences', () => {
  const values = mergeValues({ from: ' ', into: '' });
  const checked = checkForm(MergeBody, { ...values }, mergeFields);
  assert.equal(checked.ok, false);
  assert.deepEqual(!checked.ok && checked.errors, {
    from: 'Choose the campus that goes.',
    into: 'Choose the campus that stays.',
  });
  assert.equal(checkForm(MergeBody, { from: 'n1', into: 'n2' }, mergeFields).ok, true);
});

test('the confirmation names the campuses chosen from the list, and a typed name as typed', () => {
  const asked = mergeConfirmation({ from: 'n2', into: 'n1' }, choices, '/console/x/campuses');
  assert.equal(asked.title, 'Merge Northern into North?');
  assert.equal(asked.button, 'Merge into North');
  assert.equal(asked.action, '/console/x/campuses/merge');
  assert.deepEqual(asked.fields, { from: 'n2', into: 'n1' });
  assert.equal(mergeConfirmation({ from: 'Old', into: 'n1' }, undefined, '/p').title, 'Merge Old into n1?');
});
