import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listFilterOf, parseAssigned, signedInPersonOf } from './listing.ts';

test('assigned: me, none, any or a person id; anything else is invalid_field', () => {
  assert.deepEqual(parseAssigned('none', undefined), { kind: 'none' });
  const me = '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d';
  assert.deepEqual(parseAssigned('any', me), { kind: 'any' });
  // `me` is the signed-in person's id, never their name.
  assert.deepEqual(parseAssigned('me', me), { kind: 'person', personId: me });
  assert.deepEqual(parseAssigned('5F0C6A8E-2B1D-4C3E-9A7F-1D2E3F4A5B6C', undefined), {
    kind: 'person',
    personId: '5f0c6a8e-2b1d-4c3e-9a7f-1d2e3f4a5b6c',
    checked: false,
  });
  const invalid = (error: { code?: string; extra?: { field?: string } }) =>
    error.code === 'invalid_field' && error.extra?.field === 'assigned';
  // `me` needs a signed-in person; names and other words are not accepted.
  assert.throws(() => parseAssigned('me', undefined), invalid);
  for (const value of ['Ada Admin', 'unassigned', 'ME', '', 'null'])
    assert.throws(() => parseAssigned(value, me), invalid);
});

test('`me` is whoever signed in; the operator token and students are nobody', () => {
  const personId = '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d';
  const staff = {
    kind: 'person' as const,
    personId,
    institutionId: 'i',
    roles: ['staff' as const],
    permissions: [],
    actor: 'Kai',
    sessionId: 's',
  };
  assert.equal(signedInPersonOf(staff), personId);
  assert.equal(signedInPersonOf({ kind: 'operator', actor: 'operator', sessionId: 's', personId }), personId);
  assert.equal(signedInPersonOf({ kind: 'operator', actor: 'operator', personId }), undefined);
  assert.equal(
    signedInPersonOf({
      kind: 'student',
      studentId: personId,
      institutionId: 'i',
      actor: 'S',
      sessionId: 's',
      timeZone: 'UTC',
    }),
    undefined,
  );
  assert.deepEqual(
    listFilterOf({ status: 'new', assigned: 'me', order: 'crisis_first' }, staff, { limit: 50 }),
    {
      limit: 50,
      status: 'new',
      priority: undefined,
      category: undefined,
      search: undefined,
      studentId: undefined,
      assignment: { kind: 'person', personId },
      order: 'crisis_first',
    },
  );
  assert.equal(listFilterOf({}, staff, { limit: 1 }).assignment, undefined);
  const searched = listFilterOf({ q: ' Ada%', category: 'financial' }, staff, { limit: 1 });
  assert.equal(searched.search, '%ada\\%%');
  assert.equal(searched.category, 'financial');
});
