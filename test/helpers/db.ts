// Real databases for tests: embedded PGlite always, PostgreSQL too when TEST_DATABASE_URL is set.
// Each starts from a migrated template (scratch-db.ts): PGlite from a dump of one, PostgreSQL as
// a database of its own cloned from one, dropped afterwards, so concurrent runs never meet.
import type { Db } from '../../src/db/db.ts';
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
