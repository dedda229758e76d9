import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideMatch, type Identity } from './matching.ts';

const id = (over: Partial<Identity> = {}): Identity => ({
  issuer: 'https://idp.example',
  subject: 'sub-1',
  email: 'a@example.edu',
  emailVerified: true,
  ...over,
});

test('a linked subject wins whatever the email says', () => {
  const linked = { kind: 'person' as const, id: 'p1' };
  assert.deepEqual(decideMatch(id({ email: 'changed@x', emailVerified: false }), { linked }), {
    party: linked,
    link: false,
  });
});

test('a link whose party is gone finds nobody, even if the email matches someone', () => {
  assert.deepEqual(decideMatch(id(), { linkedInactive: true, person: { id: 'p2', subject: null } }), {
    failure: 'person_not_found',
  });
});

test('by verified email: links a person, else a student; unverified or missing email is refused', () => {
  assert.deepEqual(decideMatch(id(), { person: { id: 'p1', subject: null } }), {
    party: { kind: 'person', id: 'p1' },
    link: true,
  });
  assert.deepEqual(decideMatch(id(), { student: { id: 's1', subject: null } }), {
    party: { kind: 'student', id: 's1' },
    link: true,
  });
  assert.deepEqual(
    decideMatch(id(), { person: { id: 'p1', subject: null }, student: { id: 's1', subject: null } }),
    { party: { kind: 'person', id: 'p1' }, link: true },
  );
  assert.deepEqual(decideMatch(id({ emailVerified: false }), { person: { id: 'p1', subject: null } }), {
    failure: 'email_not_verified',
  });
  assert.deepEqual(decideMatch(id({ email: undefined }), {}), { failure: 'person_not_found' });
  assert.deepEqual(decideMatch(id(), {}), { failure: 'person_not_found' });
});

test('a person linked to another subject at this issuer is not taken over by email', () => {
  assert.deepEqual(decideMatch(id(), { person: { id: 'p1', subject: 'other' } }), {
    failure: 'identity_conflict',
  });
});
