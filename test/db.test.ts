// The database seam behaves the same on both drivers, and so do the indexes' options.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { migrate } from '../src/db/migrate.ts';
import { databaseKinds, openTestDb } from './helpers/db.ts';

for (const kind of databaseKinds()) {
  describe(`database seam [${kind}]`, () => {
    test('rowCount, types, transactions and idempotent migrations', async () => {
      const db = await openTestDb(kind);
      try {
        assert.deepEqual(await migrate(db), [], 'a migrated database has nothing pending');
        const select = await db.query<{ n: number; big: number; at: Date; doc: { a: number } }>(
          `SELECT 1 AS n, 9007199254740991::int8 AS big, now() AS at, '{"a":1}'::jsonb AS doc
           FROM generate_series(1, 3)`,
        );
        assert.equal(select.rowCount, 3);
        assert.equal(select.rows[0].big, 9007199254740991);
        assert.ok(select.rows[0].at instanceof Date);
        assert.deepEqual(select.rows[0].doc, { a: 1 });

        const inserted = await db.query(
          "INSERT INTO institutions (slug, name) VALUES ('seam-a', 'A'), ('seam-b', 'B')",
        );
        assert.equal(inserted.rowCount, 2);
        const updated = await db.query(
          "UPDATE institutions SET name = name || ' renamed' WHERE slug LIKE 'seam-%'",
        );
        assert.equal(updated.rowCount, 2);

        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query("INSERT INTO institutions (slug, name) VALUES ('seam-c', 'C')");
            throw new Error('abort');
          }),
          /abort/,
        );
        const afterRollback = await db.query("SELECT 1 FROM institutions WHERE slug = 'seam-c'");
        assert.equal(afterRollback.rowCount, 0, 'a failed transaction writes nothing');
      } finally {
        await db.close();
      }
    });

    // Migrations 0110 and 0118: the trigram indexes' pending lists, the requests' 64 kB and the
    // students' 1 MB, the same on both databases.
    test('the trigram indexes keep the pending lists chosen for them', async () => {
      const db = await openTestDb(kind);
      try {
        const { rows } = await db.query<{ relname: string; reloptions: string[] }>(
          `SELECT relname, reloptions FROM pg_class
           WHERE relname IN ('students_search_trgm_idx', 'help_requests_summary_trgm_idx')
           ORDER BY relname`,
        );
        assert.deepEqual(rows, [
          { relname: 'help_requests_summary_trgm_idx', reloptions: ['gin_pending_list_limit=64'] },
          {
            relname: 'students_search_trgm_idx',
            reloptions: ['gin_pending_list_limit=1024'],
          },
        ]);
      } finally {
        await db.close();
      }
    });
  });
}
