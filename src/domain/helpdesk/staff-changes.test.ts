import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assignmentChange, statusChange } from './staff-changes.ts';
import type { HelpRequestRow } from './store.ts';

const now = new Date('2026-03-04T10:00:00Z');
const row: HelpRequestRow = {
  id: '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d',
  institution_id: 'i',
  student_id: null,
  status: 'new',
  priority: 'normal',
  category: null,
  summary: null,
  assigned_to: null,
  assigned_to_id: null,
  external_ref: null,
  resolved_at: null,
  version: 1,
  staff_status_changed_at: null,
  first_response_at: null,
  created_at: now,
  updated_at: now,
};

test('a status change records from and to, under the staff member; the same status is no change', () => {
  const resolved = statusChange(row, 'resolved', 'Kai', now);
  assert.equal(resolved?.row.status, 'resolved');
  assert.deepEqual(resolved?.row.resolved_at, now);
  assert.deepEqual(resolved?.entries, [
    {
      help_request_id: row.id,
      kind: 'audit',
      action: 'status',
      actor: 'Kai',
      origin: 'platform',
      from_status: 'new',
      to_status: 'resolved',
    },
  ]);
  assert.equal(statusChange(row, 'new', 'Kai', now), undefined);
});

test('assigning names the person at the time; the same person, or unassigning no one, is no change', () => {
  const ann = { id: '5f0c6a8e-2b1d-4c3e-9a7f-1d2e3f4a5b6c', name: 'Ann' };
  const assigned = assignmentChange(row, ann, 'Kai');
  assert.equal(assigned?.row.assigned_to_id, ann.id);
  assert.equal(assigned?.entries[0].action, 'assign');
  assert.equal(assigned?.entries[0].assigned_to, 'Ann');
  assert.equal(assigned?.entries[0].assigned_person_id, ann.id);
  assert.equal(
    assignmentChange({ ...row, assigned_to: 'Ann', assigned_to_id: ann.id }, ann, 'Kai'),
    undefined,
  );
  assert.equal(assignmentChange(row, null, 'Kai'), undefined);
  // A legacy name (no person) is replaced by any assignment, unassigning included.
  const legacy = assignmentChange({ ...row, assigned_to: 'Old Name' }, null, 'Kai');
  assert.equal(legacy?.entries[0].action, 'unassign');
  assert.equal(legacy?.row.assigned_to, null);
});
