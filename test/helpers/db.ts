// Real databases for tests: embedded PGlite always, PostgreSQL too when TEST_DATABASE_URL is set.
// Each starts from a migrated template (scratch-db.ts): PGlite from a dump of one, PostgreSQL as
// a database of its own cloned from one, dropped afterwards, so concurrent runs never meet.
import { after, before, describe } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { listMigrations } from '../../src/db/migrate.ts';
import { openScratchPglite, openScratchPostgres } from './scratch-db.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/** The database kinds this run tests against. */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export async function openTestDb(kind: DatabaseKind): Promise<Db> {
  return kind === 'pglite' ? openPglite() : openPostgres();
}

function openPglite(): Promise<Db> {
  return openScratchPglite();
}

function openPostgres(): Promise<Db> {
  return openScratchPostgres(process.env.TEST_DATABASE_URL!, { prefix: 't' });
}

/**
 * A scratch database of this kind migrated only up to (not including) migration `version`: what
 * a test of that migration fills with the data it must carry over.
 */
export function openTestDbBefore(kind: DatabaseKind, version: string): Promise<Db> {
  const migrations = listMigrations().filter((m) => m.version < version);
  return kind === 'pglite'
    ? openScratchPglite(migrations)
    : openScratchPostgres(process.env.TEST_DATABASE_URL!, { prefix: `m${version}`, migrations });
}

/** Runs `check` on a database of each kind in turn, migrated up to `version` (openTestDbBefore). */
export async function onEachDatabaseBefore(version: string, check: (db: Db) => Promise<void>): Promise<void> {
  for (const kind of databaseKinds()) {
    const db = await openTestDbBefore(kind, version);
    try {
      await check(db);
    } finally {
      await db.close();
    }
  }
}

/**
 * A suite per database kind on a database migrated up to `version` (openTestDbBefore), opened
 * before its tests and closed after them: the test of that migration, which `database()` reads.
 */
export function describeMigration(version: string, name: string, suite: (database: () => Db) => void): void {
  for (const kind of databaseKinds()) {
    describe(`migration ${version}: ${name} [${kind}]`, () => {
      let db: Db;
      before(async () => {
        db = await openTestDbBefore(kind, version);
      });
      after(async () => {
        await db.close();
      });
      suite(() => db);
    });
  }
}
