import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../errors.ts';
import { searchPattern } from './search.ts';

test('a search term becomes a case-insensitive pattern with LIKE wildcards taken literally', () => {
  assert.equal(searchPattern(undefined), undefined);
  assert.equal(searchPattern('   '), undefined);
  assert.equal(searchPattern(' Ada  Love '), '%ada love%');
  assert.equal(searchPattern('50%_off\\'), '%50\\%\\_off\\\\%');
});

test('a term shorter than three characters or longer than 200 is refused with the field named', () => {
  for (const q of ['ab', 'x'.repeat(201)])
    assert.throws(
      () => searchPattern(q),
      (error) =>
        error instanceof ApiError && error.code === 'invalid_field' && error.extra.field === 'querystring.q',
    );
});
