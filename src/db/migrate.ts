// Numbered .sql migrations, applied in order, each in its own transaction, recorded in
// schema_migrations. A transaction-level advisory lock lets several instances start at once.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';
import { GlobalLock } from './locks.ts';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface Migration {
  version: string;
  sql: string;
}

export function listMigrations(dir = migrationsDir): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => ({
      version: name.replace(/\.sql$/, ''),
      sql: fs.readFileSync(path.join(dir, name), 'utf8'),
    }));
}

export interface MigrateOptions {
  /** Called before each pending migration runs (a first start says what it is doing). */
  onMigration?: (step: { version: string; index: number; total: number }) => void;
}

/**
 * Applies pending migrations; returns the versions applied now. Each migration is one script run
 * by the driver (both run several statements in one call) inside its own transaction.
 */
export async function migrate(
  db: Db,
  migrations = listMigrations(),
  options: MigrateOptions = {},
): Promise<string[]> {
  // Under the lock too: two instances starting on an empty database would otherwise race on
  // CREATE TABLE IF NOT EXISTS (a duplicate pg_type row, not a no-op).
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [GlobalLock.migrations]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  // For reporting only: the lock below decides, so another instance may apply some first.
  const { rows: done } = await db.query<{ version: string }>('SELECT version FROM schema_migrations');
  const pending = migrations.filter((m) => !done.some((d) => d.version === m.version));
  const applied: string[] = [];
  for (const migration of migrations) {
    const index = pending.indexOf(migration);
    if (index >= 0)
      options.onMigration?.({ version: migration.version, index: index + 1, total: pending.length });
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [GlobalLock.migrations]);
      const existing = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [
        migration.version,
      ]);
      if (existing.rows.length > 0) return false;
      if (!tx.exec) throw new Error('migrate: this database adapter cannot run scripts in a transaction');
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
