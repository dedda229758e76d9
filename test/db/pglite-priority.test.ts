// Turns on the embedded database (src/db/pglite-worker.js): while something holds the one
// session, a request's statement that waits goes before background work that waits, a lane once
// begun is never interrupted, and background work is not starved by a flood of requests.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPgliteDb, type Db, forBackground } from '../../src/db/db.ts';
import { pgliteTemplate } from '../helpers/scratch-db.ts';

let db: Db;

before(async () => {
  db = await createPgliteDb({ loadDataDir: await pgliteTemplate() });
});

after(async () => {
  await db.close();
});

/** A transaction that holds the database until `release()` is called (after it has begun). */
async function holdLane(on: Db) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let begun = () => {};
  const started = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const done = on.transaction(async (tx) => {
    await tx.query('SELECT 1');
    begun();
    await released;
  });
  await started;
  return { release, done };
}

/** Sends a statement and notes its name in `order` when it is answered. */
const noted = (order: string[], on: Db, name: string) =>
  on.query('SELECT $1::text AS name', [name]).then(() => {
    order.push(name);
  });

test('the embedded database has a background Db; PostgreSQL-like wrappers fall back to the Db itself', () => {
  assert.ok(db.background, 'the threaded embedded database tags background work');
  assert.equal(forBackground(db), db.background);
  const plain = { ...db, background: undefined } as Db;
  assert.equal(forBackground(plain), plain);
});

test("a request's statement runs before a background transaction that waited longer", async () => {
  const background = forBackground(db);
  const order: string[] = [];
  const lane = await holdLane(background);
  // Queued while the lane holds the database: a background transaction, then a request's statement.
  const backgroundTx = background.transaction(async (tx) => {
    await tx.query('SELECT 1');
    // Its own statements go straight to it, even with a request waiting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await tx.query('SELECT 2');
    order.push('background transaction');
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const request = noted(order, db, 'request');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The lane in progress is not interrupted: nothing has run yet.
  assert.deepEqual(order, []);
  lane.release();
  await Promise.all([lane.done, backgroundTx, request]);
  assert.deepEqual(order, ['request', 'background transaction']);
});

test('a request that arrives while a background lane runs waits for that lane only', async () => {
  const background = forBackground(db);
  await db.exec('CREATE TABLE IF NOT EXISTS priority_t (id int PRIMARY KEY)');
  const order: string[] = [];
  const writes = background.transaction(async (tx) => {
    await tx.query('INSERT INTO priority_t VALUES (1)');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await tx.query('INSERT INTO priority_t VALUES (2)');
    order.push('lane');
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const seen = db.query<{ n: number }>('SELECT count(*)::int AS n FROM priority_t').then((r) => {
    order.push('request');
    return r.rows[0].n;
  });
  await writes;
  assert.equal(await seen, 2, 'the request saw the whole lane, never half of it');
  assert.deepEqual(order, ['lane', 'request']);
});

test('background work is not starved: one turn after at most 8 requests', async () => {
  const background = forBackground(db);
  const order: string[] = [];
  const lane = await holdLane(db);
  const waiting = [noted(order, background, 'background')];
  for (let i = 1; i <= 12; i++) waiting.push(noted(order, db, `request ${i}`));
  await new Promise((resolve) => setTimeout(resolve, 20));
  lane.release();
  await Promise.all([lane.done, ...waiting]);
  const requests = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `request ${from + i}`);
  assert.deepEqual(order, [...requests(1, 8), 'background', ...requests(9, 12)]);
});

test('background work gets a turn once requests have gone ahead of it for 500 ms', async () => {
  const background = forBackground(db);
  const order: string[] = [];
  const lane = await holdLane(db);
  const waiting = noted(order, background, 'background');
  // A request's lane of 600 ms goes ahead of it, then two more requests wait.
  const long = db.transaction(async (tx) => {
    await tx.query('SELECT 1');
    await new Promise((resolve) => setTimeout(resolve, 600));
    order.push('request lane');
  });
  const later = [noted(order, db, 'request 1'), noted(order, db, 'request 2')];
  await new Promise((resolve) => setTimeout(resolve, 20));
  lane.release();
  await Promise.all([lane.done, waiting, long, ...later]);
  assert.deepEqual(order, ['request lane', 'background', 'request 1', 'request 2']);
});

test('background work that queued long behind itself still lets a request go first', async () => {
  const background = forBackground(db);
  const order: string[] = [];
  // A background lane holds the database 600 ms while another background item queues behind it.
  const lane = await holdLane(background);
  const waiting = noted(order, background, 'background');
  await new Promise((resolve) => setTimeout(resolve, 600));
  const request = noted(order, db, 'request');
  await new Promise((resolve) => setTimeout(resolve, 20));
  lane.release();
  await Promise.all([lane.done, waiting, request]);
  assert.deepEqual(order, ['request', 'background']);
});

test("a request's next statement, sent as its last one is answered, goes before waiting background work", async () => {
  const background = forBackground(db);
  const order: string[] = [];
  const lane = await holdLane(db);
  const waiting = noted(order, background, 'background');
  const request = noted(order, db, 'request 1').then(() => noted(order, db, 'request 2'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  lane.release();
  await Promise.all([lane.done, waiting, request]);
  assert.deepEqual(order, ['request 1', 'request 2', 'background']);
});
