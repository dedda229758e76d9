// Throw-away migrated databases for tests and benchmarks: PostgreSQL in a schema of its own
// (created now, dropped on close, so concurrent runs never meet) or in-memory PGlite.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/db.ts';
import { type Migration, migrate } from '../../src/db/migrate.ts';

export async function openScratchPostgres(
  connectionString: string,
  options: { prefix?: string; max?: number; migrations?: Migration[] } = {},
): Promise<Db & { schema: string }> {
  const schema = `${options.prefix ?? 'scratch'}_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const db = createPostgresDb({ connectionString, schema, max: options.max ?? 10 });
  await migrate(db, options.migrations);
  return {
    ...db,
    schema,
    async close() {
      await db.close();
      await admin(`DROP SCHEMA ${schema} CASCADE`);
    },
  };
}

export async function openScratchPglite(migrations?: Migration[]): Promise<Db> {
  const db = await createPgliteDb();
  await migrate(db, migrations);
  return db;
}
