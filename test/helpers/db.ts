// Real databases for tests: embedded PGlite always, PostgreSQL too when TEST_DATABASE_URL is set.
// PGlite starts from a migrated template kept in the temp directory (keyed by the migrations'
// content), because creating a cluster from scratch takes seconds. Each PostgreSQL test
// database is a fresh schema, dropped afterwards, so concurrent runs never meet.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPgliteDb, type Db } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { openScratchPostgres } from './scratch-db.ts';

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

function openPostgres(): Promise<Db> {
  return openScratchPostgres(process.env.TEST_DATABASE_URL!, { prefix: 't' });
}
