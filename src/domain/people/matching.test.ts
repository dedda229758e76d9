import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asciiLower, caseAmbiguous, decideMatch, type Identity } from './matching.ts';

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

test('case is ASCII case: the Kelvin sign, the long s and the dotted capital I are refused, not folded', () => {
  assert.equal(asciiLower('Kate.O@Example.EDU'), 'kate.o@example.edu');
  assert.equal(asciiLower('\u212Aate@example.edu'), '\u212Aate@example.edu');
  for (const ambiguous of [
    '\u212Aate@example.edu',
    'ro\u017Fa@example.edu',
    '\u0130nes@example.edu',
    'JOS\u00C9@x.org',
  ]) {
    assert.equal(caseAmbiguous(ambiguous), true, ambiguous);
    assert.deepEqual(decideMatch(id({ email: ambiguous }), { person: { id: 'p1', subject: null } }), {
      failure: 'email_ambiguous',
    });
  }
  for (const plain of ['Kate@Example.edu', 'jos\u00E9@x.org', 'ana.lima@student.example.edu']) {
    assert.equal(caseAmbiguous(plain), false, plain);
  }
  // A linked subject still signs in, whatever its email became.
  const linked = { kind: 'person' as const, id: 'p1' };
  assert.deepEqual(decideMatch(id({ email: '\u212Aate@example.edu' }), { linked }), {
    party: linked,
    link: false,
  });
});

test('after an issuer change not yet confirmed, an existing party is not linked by email; a linked one signs in', () => {
  for (const candidates of [
    { person: { id: 'p1', subject: null, held: true } },
    { student: { id: 's1', subject: null, held: true } },
  ]) {
    assert.deepEqual(decideMatch(id({}), candidates), { failure: 'link_confirmation_required' });
  }
  assert.deepEqual(decideMatch(id({}), { person: { id: 'p1', subject: null, held: false } }), {
    party: { kind: 'person', id: 'p1' },
    link: true,
  });
  const linked = { kind: 'person' as const, id: 'p1' };
  assert.deepEqual(decideMatch(id({}), { linked, person: { id: 'p1', subject: 'sub', held: true } }), {
    party: linked,
    link: false,
  });
});
