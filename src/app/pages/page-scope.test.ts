import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readableDetail } from './page-scope.ts';

test("a route schema's refusal reads in words on a page, never as a schema path", () => {
  const known = {
    extra: { field: 'querystring.q', detail: 'querystring.q must NOT have more than 1000 characters' },
  };
  const query = readableDetail(known, { validation: [{}], validationContext: 'querystring' });
  assert.match(query, /^This address asks for something the page cannot read/);
  assert.doesNotMatch(query, /querystring|must NOT/);
  assert.match(
    readableDetail(known, { validation: [{}], validationContext: 'body' }),
    /^What was sent could not be read/,
  );
  assert.equal(
    readableDetail({ extra: { detail: 'enable the endpoint first' } }, new Error('x')),
    'enable the endpoint first',
  );
  assert.equal(readableDetail({ extra: {} }, null), 'The request could not be read.');
});
