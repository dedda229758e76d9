import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import type { KeysetPage } from '../../../db/keyset.ts';
import { ApiError } from '../../../errors.ts';
import { encodeCursor, type KeysetOrder } from '../../../lib/cursor.ts';
import { allOrNone, listingUrl, readFilteredListing, readListing } from './listing.ts';

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
  assert.match(String(edited.problem), /^This link to a later page is out of date/);
  const refused = await readListing(order, {}, async () => {
    throw new ApiError('invalid_field', { detail: 'assigned=me needs a signed-in person' });
  });
  assert.equal(refused.problem, 'assigned=me needs a signed-in person');
  await assert.rejects(
    readListing(order, {}, async () => {
      throw new ApiError('not_found', { detail: 'no such thing' });
    }),
    (error: ApiError) => error.code === 'not_found',
  );
});

test('filters are checked with the schema first: every refused field in a sentence, nothing read', async () => {
  const schema = Type.Object({
    status: Type.Optional(Type.String({ enum: ['active', 'departed'] })),
    id: Type.Optional(Type.String({ format: 'uuid' })),
  });
  const fields = { status: { label: 'Status' }, id: { label: 'Cohort' } };
  let reads = 0;
  const read = async (filter: Record<string, unknown>) => {
    reads += 1;
    return { items: [filter], next: null };
  };
  const refused = await readFilteredListing(
    { schema, values: { status: 'gone', id: 'nope' }, fields },
    order,
    {},
    read,
  );
  assert.equal(reads, 0);
  assert.deepEqual(refused.items, []);
  assert.equal(refused.problem, 'Choose one of the status options. Cohort is not valid.');
  // An empty value is no filter.
  const read1 = await readFilteredListing(
    { schema, values: { status: 'active', id: '' }, fields },
    order,
    {},
    read,
  );
  assert.deepEqual(read1.items, [{ status: 'active' }]);
});

test('choices: every row when they fit in one read, else none; a listing URL keeps the filters given', async () => {
  assert.deepEqual(await allOrNone(async () => ({ items: [1, 2], next: null })), [1, 2]);
  assert.equal(await allOrNone(async () => ({ items: [1, 2], next: [2] })), undefined);
  assert.equal(listingUrl('/p', { q: 'ada', program: undefined, campus: 'N' }), '/p?q=ada&campus=N');
  assert.equal(listingUrl('/p', {}), '/p?');
});
