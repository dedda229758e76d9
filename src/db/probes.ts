// Questions asked of the database itself rather than of the service's data: whether it answers
// (the readiness check), and whether this service's tables are there (a CLI command that must
// not create an empty database).
import type { Queryable } from './db.ts';

/** Resolves when the database answers a trivial statement; rejects otherwise. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}

/** Whether the service's migrations table exists (the server has started on this database once). */
export async function hasMigrationsTable(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ ready: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS ready",
  );
  return Boolean(rows[0]?.ready);
}
