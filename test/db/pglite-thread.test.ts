// The embedded database on its own thread (src/db/pglite-thread.ts): what the server's thread
// sees must be what PGlite on that thread gave, and a transaction must keep its statements
// together while other callers wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPgliteDb, isDatabaseUnavailable, pgConstraint, pgErrorCode } from '../../src/db/db.ts';
import { pgliteTemplate } from '../helpers/scratch-db.ts';

test('the threaded embedded database: types, errors, transactions in a lane, close', async () => {
  const db = await createPgliteDb({ loadDataDir: await pgliteTemplate() });
  try {
    await db.exec('CREATE TABLE thread_t (id int PRIMARY KEY, at timestamptz, j jsonb, b bytea, n int8)');
    const at = new Date('2026-09-01T06:00:00Z');
    const inserted = await db.query('INSERT INTO thread_t VALUES ($1, $2, $3, $4, $5)', [
      1,
      at,
      { a: [1, 'x'] },
      Buffer.from('hi'),
      5,
    ]);
    assert.equal(inserted.rowCount, 1);
    const { rows, rowCount } = await db.query<{ at: Date; j: unknown; b: Uint8Array; n: number }>(
      'SELECT at, j, b, n FROM thread_t',
    );
    assert.equal(rowCount, 1);
    assert.ok(rows[0].at instanceof Date);
    assert.equal(rows[0].at.getTime(), at.getTime());
    assert.deepEqual(rows[0].j, { a: [1, 'x'] });
    assert.equal(Buffer.from(rows[0].b).toString(), 'hi');
    assert.equal(rows[0].n, 5);

    // A database error keeps its fields: the HTTP layer maps 23505 to 409 by them.
    const duplicate = await db.query('INSERT INTO thread_t (id) VALUES (1)').catch((error) => error);
    assert.equal(pgErrorCode(duplicate), '23505');
    assert.equal(pgConstraint(duplicate), 'thread_t_pkey');
    assert.match(duplicate.message, /duplicate key/);

    // A transaction that awaits other things between its statements keeps the session: the
    // statement from outside sees none of it until it commits; a failed one leaves nothing.
    const order: string[] = [];
    const [committed, outside, failed] = await Promise.all([
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO thread_t (id) VALUES (2)');
        await new Promise((resolve) => setTimeout(resolve, 50));
        await tx.query('INSERT INTO thread_t (id) VALUES (3)');
        order.push('committed');
        return 'done';
      }),
      db.query<{ n: number }>('SELECT count(*)::int AS n FROM thread_t').then((r) => {
        order.push('outside');
        return r.rows[0].n;
      }),
      db
        .transaction(async (tx) => {
          await tx.query('INSERT INTO thread_t (id) VALUES (10)');
          throw new Error('boom');
        })
        .catch((error: Error) => error.message),
    ]);
    assert.equal(committed, 'done');
    assert.equal(outside, 3, 'the statement from outside ran after the whole transaction');
    assert.deepEqual(order, ['committed', 'outside']);
    assert.equal(failed, 'boom');
    // A statement error inside a transaction rolls it back and reaches the caller with its code.
    const inTx = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO thread_t (id) VALUES (20)');
        await tx.query('INSERT INTO thread_t (id) VALUES (1)');
      })
      .catch((error) => error);
    assert.equal(pgErrorCode(inTx), '23505');
    const ids = await db.query<{ id: number }>('SELECT id FROM thread_t ORDER BY id');
    assert.deepEqual(
      ids.rows.map((r) => r.id),
      [1, 2, 3],
    );
    // Scripts, in a transaction and outside it.
    await db.transaction(async (tx) => {
      await tx.exec?.('INSERT INTO thread_t (id) VALUES (30); INSERT INTO thread_t (id) VALUES (31);');
    });
    assert.equal((await db.query('SELECT id FROM thread_t WHERE id >= 30')).rowCount, 2);
    // Many callers at once, each answered with its own rows.
    const many = await Promise.all(
      Array.from({ length: 50 }, (_, i) => db.query<{ v: number }>('SELECT $1::int AS v', [i])),
    );
    assert.deepEqual(
      many.map((r) => r.rows[0].v),
      Array.from({ length: 50 }, (_, i) => i),
    );
    assert.ok((await db.dump()).size > 0);
  } finally {
    await db.close();
  }
  const closed = await db.query('SELECT 1').catch((error) => error);
  assert.ok(isDatabaseUnavailable(closed), 'a closed database is unavailable (503), as before');
});

test('the embedded database runs with its settings on either thread; one transaction may lock a thousand relations', async () => {
  for (const thread of [true, false]) {
    const db = await createPgliteDb({ loadDataDir: await pgliteTemplate(), thread });
    try {
      const setting = async (name: string) =>
        (await db.query<{ setting: string }>(`SELECT current_setting('${name}') AS setting`)).rows[0].setting;
      assert.equal(await setting('shared_buffers'), '16MB');
      assert.equal(await setting('max_connections'), '10');
      // The lock table is sized for ten connections of 256 locks: a script that creates (and so
      // locks) a thousand tables in one transaction still fits.
      await db.transaction(async (tx) => {
        await tx.exec?.(
          "DO $$ BEGIN FOR i IN 1..1000 LOOP EXECUTE format('CREATE TABLE lock_t%s (id int)', i); END LOOP; END $$",
        );
      });
      assert.equal(
        (await db.query("SELECT 1 FROM pg_class WHERE relname LIKE 'lock\\_t%' AND relkind = 'r'")).rowCount,
        1000,
      );
    } finally {
      await db.close();
    }
  }
});
