import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KeysetPage } from '../../../db/keyset.ts';
import { ApiError } from '../../../errors.ts';
import { encodeCursor, type KeysetOrder } from '../../../lib/cursor.ts';
import { readListing } from './listing.ts';

const order: KeysetOrder = { listing: 'things', key: ['int'] };

test('a page: the cursor decoded for the read, the next cursor encoded for the link', async () => {
  const asked: KeysetPage[] = [];
  const first = await readListing(order, { size: 2 }, async (page) => {
    asked.push(page);
    return { items: ['a', 'b'], next: [2] };
  });
  assert.deepEqual(asked[0], { limit: 2, after: undefined });
  assert.deepEqual(first, { items: ['a', 'b'], next: encodeCursor(order, [2]), paged: false });
  const second = await readListing(order, { cursor: first.next, size: 2 }, async (page) => {
    asked.push(page);
    return { items: ['c'], next: null };
  });
  assert.deepEqual(asked[1], { limit: 2, after: [2] });
  assert.deepEqual(second, { items: ['c'], next: undefined, paged: true });
});

test("a refused cursor or filter is the page's inline message; other failures are not", async () => {
  const edited = await readListing(order, { cursor: 'not-a-cursor' }, async () => ({
    items: [],
    next: null,
  }));
  assert.equal(edited.paged, true);
  assert.match(String(edited.problem), /\(invalid_cursor\)$/);
  const refused = await readListing(order, {}, async () => {
    throw new ApiError('invalid_field', { detail: 'assigned=me needs a signed-in person' });
  });
  assert.equal(refused.problem, 'assigned=me needs a signed-in person (invalid_field)');
  await assert.rejects(
    readListing(order, {}, async () => {
      throw new ApiError('not_found', { detail: 'no such thing' });
    }),
    (error: ApiError) => error.code === 'not_found',
  );
});
