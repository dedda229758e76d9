// Throw-away migrated databases for tests and benchmarks: PostgreSQL in a schema of its own
// (created now, dropped on close, so concurrent runs never meet) or in-memory PGlite, which
// starts from a migrated template kept in the temp directory (keyed by the migrations'
// content), because creating and migrating a cluster from scratch takes seconds.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/db.ts';
import { listMigrations, type Migration, migrate } from '../../src/db/migrate.ts';

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

/** In-memory PGlite with the given migrations applied (every migration when none is given). */
export async function openScratchPglite(migrations?: Migration[]): Promise<Db> {
  if (!migrations) return createPgliteDb({ loadDataDir: await pgliteTemplate() });
  const db = await createPgliteDb();
  await migrate(db, migrations);
  return db;
}

/** A dump of a PGlite data directory with every migration applied, made once per content. */
export async function pgliteTemplate(): Promise<Blob> {
  const migrations = listMigrations();
  const key = createHash('sha256')
    .update(migrations.map((m) => m.version + m.sql).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const templatePath = path.join(os.tmpdir(), `ssp-pglite-template-${key}.tar`);
  if (!fs.existsSync(templatePath)) {
    const db = await createPgliteDb();
    try {
      await migrate(db, migrations);
      const dump = await db.dump();
      // Written aside then renamed, so a concurrent reader never sees half a file.
      const tmp = `${templatePath}.${process.pid}`;
      fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
      fs.renameSync(tmp, templatePath);
    } finally {
      await db.close();
    }
  }
  return new Blob([fs.readFileSync(templatePath)]);
}
