import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AssigneeCandidate, assigneeRef, checkAssigneeById, pickAssigneeByName } from './assignment.ts';

const person = (
  id: string,
  name: string,
  roles: string[] = ['staff'],
  removed = false,
): AssigneeCandidate => ({
  id,
  name,
  roles,
  removed,
});
const refused = (code: string, field: string) => (error: { code?: string; extra?: { field?: string } }) =>
  error.code === code && error.extra?.field === field;

test('by id: an active staff member or admin; unknown, removed or role-less people are refused', () => {
  assert.deepEqual(checkAssigneeById('a', person('a', 'Ann', ['admin'])), { id: 'a', name: 'Ann' });
  assert.throws(() => checkAssigneeById('a', undefined), refused('assignee_not_found', 'assignee_id'));
  assert.throws(
    () => checkAssigneeById('a', person('a', 'Ann', ['staff'], true)),
    refused('assignee_removed', 'assignee_id'),
  );
  assert.throws(
    () => checkAssigneeById('a', person('a', 'Ann', [])),
    refused('assignee_not_staff', 'assignee_id'),
  );
});

test('by name: exactly one active staff member or admin with that exact name', () => {
  const people = [person('a', 'Sam'), person('b', 'Sam', ['staff'], true), person('c', 'sam')];
  assert.deepEqual(pickAssigneeByName('Sam', people), { id: 'a', name: 'Sam' });
  assert.throws(() => pickAssigneeByName('Kim', people), refused('assignee_not_found', 'assignee'));
  assert.throws(
    () => pickAssigneeByName('Sam', [...people, person('d', 'Sam', ['admin'])]),
    refused('ambiguous_assignee', 'assignee'),
  );
});

test('the body names the assignee by exactly one of assignee_id and assignee', () => {
  assert.deepEqual(assigneeRef({ assignee_id: 'ABCDEF01-2345-4789-8bcd-ef0123456789' }), {
    id: 'abcdef01-2345-4789-8bcd-ef0123456789',
  });
  assert.equal(assigneeRef({ assignee_id: null }), null);
  assert.equal(assigneeRef({ assignee: null }), null);
  assert.deepEqual(assigneeRef({ assignee: 'Sam' }), { name: 'Sam' });
  assert.throws(() => assigneeRef({}), refused('missing_field', 'assignee_id'));
  assert.throws(
    () => assigneeRef({ assignee_id: null, assignee: 'Sam' }),
    refused('invalid_request', 'assignee_id'),
  );
  assert.throws(() => assigneeRef({ assignee_id: 'Sam' }), refused('invalid_field', 'assignee_id'));
});
