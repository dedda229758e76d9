// Throw-away migrated databases for tests and benchmarks. PostgreSQL: a database of its own,
// cloned from a migrated template database (created once per migrations' content, under an
// advisory lock so that concurrent test processes never race to build it) and dropped on
// close, so concurrent runs never meet; a clone is one statement, where migrating a fresh
// schema is some 800 round trips that all wait on the migrations' lock, which every process
// migrating on the server shares. Given migrations of its own (a migration's test), a fresh
// schema migrated from scratch instead. PGlite: in memory, started from a migrated template
// kept in the temp directory (keyed by the migrations' content), because creating and
// migrating a cluster from scratch takes seconds.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPgliteDb, createPostgresDb, type Db } from '../../src/db/db.ts';
import { listMigrations, type Migration, migrate } from '../../src/db/migrate.ts';

/** A scratch PostgreSQL database: `connectionString` and `schema` reach it from another client. */
export type ScratchPostgres = Db & { schema: string; connectionString: string };

export async function openScratchPostgres(
  connectionString: string,
  options: { prefix?: string; max?: number; migrations?: Migration[] } = {},
): Promise<ScratchPostgres> {
  const name = `${options.prefix ?? 'scratch'}_${randomBytes(6).toString('hex')}`;
  if (options.migrations) return openMigratedSchema(connectionString, name, options.migrations, options.max);
  await cloneTemplate(connectionString, name);
  const url = databaseUrl(connectionString, name);
  const db = createPostgresDb({ connectionString: url, schema: 'public', max: options.max ?? 10 });
  return {
    ...db,
    schema: 'public',
    connectionString: url,
    async close() {
      await db.close();
      // FORCE: a connection the test left behind (a killed worker's, say) must not keep it.
      await adminQuery(connectionString, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A fresh schema in the given database with exactly these migrations applied. */
async function openMigratedSchema(
  connectionString: string,
  schema: string,
  migrations: Migration[],
  max = 10,
): Promise<ScratchPostgres> {
  await adminQuery(connectionString, `CREATE SCHEMA ${schema}`);
  const db = createPostgresDb({ connectionString, schema, max });
  await migrate(db, migrations);
  return {
    ...db,
    schema,
    connectionString,
    async close() {
      await db.close();
      await adminQuery(connectionString, `DROP SCHEMA ${schema} CASCADE`);
    },
  };
}

/**
 * A new, empty database (no migrations) on the server of `connectionString`, for a process that
 * migrates it itself as it starts: its URL, and how to drop it after.
 */
export async function createEmptyDatabase(
  connectionString: string,
  prefix: string,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(connectionString, `CREATE DATABASE ${name}`);
  return {
    name,
    url: databaseUrl(connectionString, name),
    drop: async () => {
      await adminQuery(connectionString, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminQuery(connectionString: string, sql: string, params?: unknown[]) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** The connection string of another database on the same server. */
function databaseUrl(connectionString: string, database: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Every migration's version and text, hashed: the templates' key. */
function migrationsKey(): string {
  const text = listMigrations()
    .map((m) => m.version + m.sql)
    .join('\n');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The template database's name for the current migrations. */
export function postgresTemplateName(): string {
  return `ssp_template_${migrationsKey()}`;
}

/** This process's template, once it is known to exist. */
let templateReady: Promise<string> | undefined;

async function cloneTemplate(connectionString: string, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    templateReady ??= postgresTemplate(connectionString);
    const template = await templateReady.catch((error) => {
      templateReady = undefined;
      throw error;
    });
    try {
      await adminQuery(connectionString, `CREATE DATABASE ${name} TEMPLATE ${template}`);
      return;
    } catch (error) {
      // Dropped meanwhile (a run that ended drops its template): build it again, once.
      if ((error as { code?: string }).code !== '3D000' || attempt > 0) throw error;
      templateReady = undefined;
    }
  }
}

/**
 * The migrated template database, built when missing. It is built under another name and
 * renamed when complete, so a database of the final name is always a whole one; it accepts no
 * connections, because a clone fails while anyone is connected to its template.
 */
export async function postgresTemplate(connectionString: string): Promise<string> {
  const template = postgresTemplateName();
  const exists = async (client: pg.Client) =>
    (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rows.length > 0;
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    if (await exists(client)) return template;
    // A session lock, held while building: the other processes wait, then find it built.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    if (await exists(client)) return template;
    const building = `${template}_${randomBytes(3).toString('hex')}`;
    await client.query(`CREATE DATABASE ${building}`);
    try {
      const db = createPostgresDb({ connectionString: databaseUrl(connectionString, building), max: 1 });
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      await client.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    } catch (error) {
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`).catch(() => {});
      throw error;
    }
    await client.query(`ALTER DATABASE ${template} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    return template;
  } finally {
    // Ending the session releases its lock too.
    await client.end();
  }
}

/** Drops the current migrations' template database (the end of a test run; see test/global-setup.ts). */
export async function dropPostgresTemplate(connectionString: string): Promise<void> {
  const template = postgresTemplateName();
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    // Under the builders' lock, so that no process is between building and renaming it.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (found.rows.length === 0) return;
    await client.query(`ALTER DATABASE ${template} WITH IS_TEMPLATE false`);
    await client.query(`DROP DATABASE ${template} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** In-memory PGlite with the given migrations applied (every migration when none is given). */
export async function openScratchPglite(migrations?: Migration[]): Promise<Db> {
  if (!migrations) return createPgliteDb({ loadDataDir: await pgliteTemplate() });
  const db = await createPgliteDb();
  await migrate(db, migrations);
  return db;
}

/**
 * Fills `dataDir` (missing or empty) with the embedded database as a server leaves it once it
 * has started: every migration applied, shut down cleanly. For tests of a running server that do
 * not test the first start itself, which creates the cluster and applies every migration (some 7
 * of the 11 CPU seconds of a first start, against about 4 for a later one). The server still
 * writes what a start writes (its encryption key, a first operator token when none is
 * configured). Copied from a directory kept in the temp directory (keyed by the migrations'
 * content, like the PGlite template it is made from), private as the server keeps it.
 */
export async function migratedDataDir(dataDir: string): Promise<void> {
  fs.cpSync(await migratedDataDirTemplate(), dataDir, { recursive: true });
}

async function migratedDataDirTemplate(): Promise<string> {
  const templateDir = path.join(os.tmpdir(), `ssp-pglite-migrated-${migrationsKey()}.d`);
  if (fs.existsSync(templateDir)) return templateDir;
  const building = `${templateDir}.${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  // Loaded from the template into the directory, then closed: a clean shutdown, so a server
  // starting on a copy has no recovery to run; the close leaves it private (0700 and 0600).
  // Opening a data directory sets the process's umask to the server's (077); the test keeps its
  // own, given back after (read by setting it, as process.umask() alone is deprecated).
  const umask = process.umask(0o077);
  try {
    const db = await createPgliteDb({ dataDir: building, loadDataDir: await pgliteTemplate() });
    await db.close();
  } finally {
    process.umask(umask);
  }
  try {
    fs.renameSync(building, templateDir);
  } catch (error) {
    // Another process renamed its own first: that one is as good.
    fs.rmSync(building, { recursive: true, force: true });
    if (!fs.existsSync(templateDir)) throw error;
  }
  return templateDir;
}

/** A dump of a PGlite data directory with every migration applied, made once per content. */
export async function pgliteTemplate(): Promise<Blob> {
  const templatePath = path.join(os.tmpdir(), `ssp-pglite-migrated-${migrationsKey()}.tar`);
  if (!fs.existsSync(templatePath)) {
    const db = await createPgliteDb();
    try {
      await migrate(db);
      // Without the cluster's template databases, which nothing creates a database from on
      // PGlite: each start then loads 700 files (28 MB) instead of 1,300 (43 MB), some 0.15 CPU
      // s less. The checkpoint leaves a start's recovery (the dump is of a running cluster)
      // next to no WAL to replay.
      for (const name of ['template0', 'template1']) {
        await db.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
        await db.exec(`DROP DATABASE ${name}`);
      }
      await db.exec('CHECKPOINT');
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
