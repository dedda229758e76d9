// Real databases for tests: embedded PGlite always, PostgreSQL too when TEST_DATABASE_URL is set.
// PGlite starts from a migrated template kept in the temp directory (keyed by the migrations'
// content), because creating a cluster from scratch takes seconds. Each PostgreSQL test
// database is a fresh schema, dropped afterwards, so concurrent runs never meet.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/** The database kinds this run tests against. */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export async function openTestDb(kind: DatabaseKind): Promise<Db> {
  return kind === 'pglite' ? openPglite() : openPostgres();
}

async function openPglite(): Promise<Db> {
  const migrations = listMigrations();
  const key = createHash('sha256')
    .update(migrations.map((m) => m.version + m.sql).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const templatePath = path.join(os.tmpdir(), `ssp-pglite-template-${key}.tar`);
  if (fs.existsSync(templatePath)) {
    const blob = new Blob([fs.readFileSync(templatePath)]);
    return createPgliteDb({ loadDataDir: blob });
  }
  const db = await createPgliteDb();
  await migrate(db, migrations);
  const dump = await db.dump();
  const tmp = `${templatePath}.${process.pid}`;
  fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(tmp, templatePath);
  return db;
}

async function openPostgres(): Promise<Db> {
  const connectionString = process.env.TEST_DATABASE_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const db = createPostgresDb({ connectionString, schema, max: 10 });
  await migrate(db);
  return {
    ...db,
    async close() {
      await db.close();
      const cleanup = new pg.Client({ connectionString });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}
