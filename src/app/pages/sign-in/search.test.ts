import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SEARCH, signInSearch } from './search.ts';

test('a search longer than allowed is refused in a sentence and kept as typed, not cut', () => {
  assert.deepEqual(signInSearch('  Example University '), { q: 'Example University' });
  assert.deepEqual(signInSearch(undefined), { q: '' });
  const long = 'x'.repeat(MAX_SEARCH + 1);
  assert.deepEqual(signInSearch(long), {
    q: long,
    problem: 'Institution or email must be 200 characters or fewer',
  });
  assert.equal(signInSearch('a\u0000b').problem, 'Institution or email is not valid');
});
