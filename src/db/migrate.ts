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

/** Applies pending migrations; returns the versions applied now. */
export async function migrate(db: Db, migrations = listMigrations()): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [GlobalLock.migrations]);
      const existing = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [
        migration.version,
      ]);
      if (existing.rows.length > 0) return false;
      // Both drivers run one statement per parameterised query inside a transaction, so a
      // migration is split into statements (dollar-quoted bodies are kept whole).
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/** Splits a migration at each `;` that ends a line outside a $$-quoted block. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let inDollar = false;
  for (const line of sql.split('\n')) {
    const dollars = line.match(/\$\$/g)?.length ?? 0;
    if (dollars % 2 === 1) inDollar = !inDollar;
    current.push(line);
    if (!inDollar && /;\s*(--.*)?$/.test(line)) {
      const statement = current.join('\n').trim();
      if (stripComments(statement)) statements.push(statement);
      current = [];
    }
  }
  const rest = current.join('\n').trim();
  if (stripComments(rest)) statements.push(rest);
  return statements;
}

function stripComments(sql: string): string {
  return sql
    .split('\n')
    .filter((line) => !/^\s*--/.test(line))
    .join('\n')
    .trim();
}
