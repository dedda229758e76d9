import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createParseSlots } from './parse-slots.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('one institution holds at most its share; another institution takes the free slot at once', async () => {
  const slots = createParseSlots({ slots: 2, perInstitution: 1 });
  const order: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (institution: string, name: string) =>
    slots.take(institution).then((release) => {
      order.push(name);
      releases.set(name, release);
    });
  for (const name of ['a1', 'a2', 'a3', 'a4']) void ask('a', name);
  await tick();
  assert.deepEqual(order, ['a1']);
  void ask('b', 'b1');
  await tick();
  assert.deepEqual(order, ['a1', 'b1']);
  assert.deepEqual(slots.state(), { running: 2, waiting: 3, byInstitution: { a: 1, b: 1 } });
  releases.get('b1')?.();
  releases.get('b1')?.(); // a second release changes nothing
  await tick();
  assert.deepEqual(order, ['a1', 'b1']);
  releases.get('a1')?.();
  await tick();
  assert.deepEqual(order, ['a1', 'b1', 'a2']);
});

test('waiting fetches are served round robin by institution', async () => {
  const slots = createParseSlots({ slots: 1, perInstitution: 1 });
  const order: string[] = [];
  const first = await slots.take('x');
  const asked = [
    ['a', 'a1'],
    ['a', 'a2'],
    ['a', 'a3'],
    ['b', 'b1'],
    ['c', 'c1'],
    ['b', 'b2'],
  ].map(([institution, name]) =>
    slots.take(institution).then((release) => {
      order.push(name);
      release();
    }),
  );
  first();
  await Promise.all(asked);
  assert.deepEqual(order, ['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  assert.deepEqual(slots.state(), { running: 0, waiting: 0, byInstitution: {} });
});
