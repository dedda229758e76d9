// The database seam: every query in the service goes through `query` (or `transaction`,
// which hands the callback a `Queryable` bound to one transaction). Two adapters implement
// it: node-postgres for PostgreSQL and PGlite for the embedded default. Both return the
// same JavaScript types (int8 as number, timestamptz as Date, json as objects).
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { makePrivateDir, restrictUmask, tightenPrivateDir } from '../lib/data-dir.ts';
import { startPgliteThread, type ThreadedPglite } from './pglite-thread.ts';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/**
 * A transaction: parameterised queries, and on both adapters scripts of several statements
 * (migrations). Optional so that a wrapper counting or timing queries may leave it out.
 */
export interface Transaction extends Queryable {
  exec?(sql: string): Promise<void>;
}

/** A PostgreSQL pool's state, and how long callers waited for a connection (the metrics read it). */
export interface PoolGauge {
  status(): { total: number; idle: number; waiting: number; max: number };
  /** Told each wait for a connection, in seconds; the last listener set wins. */
  onWait(listener: ((seconds: number) => void) | undefined): void;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** PostgreSQL only: the pool (the embedded database has none). */
  readonly pool?: PoolGauge;
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

// int8 (counts, sums) as JavaScript numbers: every such value here is far below 2^53.
const INT8_OID = 20;
pg.types.setTypeParser(INT8_OID, (value: string) => Number(value));

export interface PostgresOptions {
  connectionString: string;
  /** Schema to put first on the search_path (tests isolate themselves with one). */
  schema?: string;
  max?: number;
}

export function createPostgresDb(options: PostgresOptions): Db {
  const runtimeOptions = ['-c jit=off'];
  if (options.schema) runtimeOptions.push(`-c search_path=${options.schema}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    options: runtimeOptions.join(' '),
    // A database that drops packets instead of refusing connections must still give requests a
    // prompt 503 database_unavailable, not hang them: give up on a new connection after 5 s.
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  const run = async <T>(client: pg.Pool | pg.PoolClient, sql: string, params?: unknown[]) => {
    const result = await client.query(sql, params as unknown[]);
    return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
  };
  const max = options.max ?? 10;
  let onWait: ((seconds: number) => void) | undefined;
  /** A connection from the pool, the wait for it timed (ssp_db_pool_wait_seconds). */
  const connect = async () => {
    const started = performance.now();
    const client = await pool.connect();
    onWait?.((performance.now() - started) / 1000);
    return client;
  };
  return {
    kind: 'postgres',
    pool: {
      status: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
      onWait(listener) {
        onWait = listener;
      },
    },
    // As pool.query does it (connect, query, release; a client that saw an error, or lost its
    // connection meanwhile, is not reused), with the wait for the connection timed.
    async query<T>(sql: string, params?: unknown[]) {
      const client = await connect();
      let released = false;
      const release = (error?: Error) => {
        if (released) return;
        released = true;
        client.release(error);
      };
      client.once('error', release);
      try {
        return await run<T>(client, sql, params);
      } catch (error) {
        release(error as Error);
        throw error;
      } finally {
        client.removeListener('error', release);
        release();
      }
    },
    async transaction(fn) {
      const client = await connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: (sql, params) => run(client, sql, params),
          // Without parameters, node-postgres uses the simple query protocol, which runs a script.
          exec: async (sql) => {
            await client.query(sql);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}

export interface PgliteOptions {
  /** Directory to persist to; omitted means in memory. */
  dataDir?: string;
  /** A data directory dump to start from (tests reuse a migrated template). */
  loadDataDir?: Blob;
  /**
   * PostgreSQL's shared_buffers inside PGlite (default 32MB; PGlite's own is 128MB). PGlite's
   * memory is one WebAssembly memory that grows and never shrinks, so its buffer pool is held
   * for the life of the process; with a data directory the operating system's page cache
   * keeps the pages that do not fit (docs/performance.md).
   */
  sharedBuffers?: string;
  /** Told, for a log line, when an existing data directory was readable by other users. */
  onTightened?: (message: string) => void;
  /**
   * Run PGlite on a thread of its own (pglite-thread.ts), so that no statement holds the
   * server's event loop; the default. `false` runs it on the calling thread
   * (EMBEDDED_DATABASE_THREAD=off).
   */
  thread?: boolean;
}

export const DEFAULT_EMBEDDED_SHARED_BUFFERS = '32MB';

/** The embedded database directory is open in another process. */
export { DatabaseInUseError } from './errors.ts';

import { DatabaseInUseError } from './errors.ts';

/**
 * One process at a time may open an embedded database directory: PGlite has no server to
 * arbitrate, and two writers corrupt each other's view. A lock file holds the owner's pid; a
 * lock left by a process that no longer exists is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'ssp.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => {
        if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseInUseError(
          `the embedded database in ${dataDir} is in use by process ${owner}; stop that process first`,
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DatabaseInUseError(`cannot lock the embedded database in ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function createPgliteDb(options: PgliteOptions = {}): Promise<Db & { dump(): Promise<Blob> }> {
  let unlock = () => {};
  const dataDir = options.dataDir;
  if (dataDir) {
    // Students' data and the secrets' key live here: private to this user (src/lib/data-dir.ts).
    restrictUmask();
    makePrivateDir(dataDir);
    const loose = tightenPrivateDir(dataDir);
    if (loose > 0) {
      options.onTightened?.(
        `${dataDir} had ${loose} files or directories open to other users: tightened to 0700 (directories) and 0600 (files)`,
      );
    }
    unlock = lockDataDir(dataDir);
  }
  const sharedBuffers = options.sharedBuffers ?? DEFAULT_EMBEDDED_SHARED_BUFFERS;
  let session: EmbeddedSession;
  try {
    session =
      options.thread === false
        ? await openPgliteHere(options, sharedBuffers)
        : await startPgliteThread({ dataDir, loadDataDir: options.loadDataDir, sharedBuffers });
  } catch (error) {
    unlock();
    throw error;
  }
  // A new cluster is written 0666 and the relation-cache files are rewritten 0644 at each start.
  if (dataDir) tightenPrivateDir(dataDir);
  return {
    kind: 'pglite',
    query: (sql, params) => session.query(sql, params),
    transaction: (fn) => session.transaction(fn),
    exec: (sql) => session.exec(sql),
    dump: () => session.dump(),
    async close() {
      await session.close();
      if (dataDir) tightenPrivateDir(dataDir);
      unlock();
    },
  };
}

/** The embedded database as either thread runs it. */
type EmbeddedSession = ThreadedPglite;

/** PGlite on the calling thread: every statement runs on it (EMBEDDED_DATABASE_THREAD=off). */
async function openPgliteHere(options: PgliteOptions, sharedBuffers: string): Promise<EmbeddedSession> {
  const lite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    parsers: { [INT8_OID]: (value: string) => Number(value) },
    // Trigram indexes serve the inbox's search (migration 0086), as on PostgreSQL.
    extensions: { pg_trgm },
    // On the command line, not in postgresql.conf, which PGlite would rewrite whole.
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`],
  });
  return { ...pgliteStatements(lite), dump: async () => (await lite.dumpDataDir('none')) as Blob };
}

/**
 * One PGlite instance behind the seam, on the calling thread: statements, transactions and close
 * (the benchmarks wrap their own instance with it, to measure what the service runs).
 */
export function pgliteStatements(lite: PGlite): Omit<EmbeddedSession, 'dump'> {
  // PGlite reports affectedRows 0 for a SELECT; pg's rowCount counts the rows returned there.
  const shape = <T>(result: { rows: unknown[]; affectedRows?: number }) => ({
    rows: result.rows as T[],
    rowCount: Math.max(result.affectedRows ?? 0, result.rows.length),
  });
  return {
    query: async (sql, params) => shape(await lite.query(sql, params as unknown[])),
    transaction: (fn) =>
      lite.transaction((tx) =>
        fn({
          query: async (sql, params) => shape(await tx.query(sql, params as unknown[])),
          exec: async (sql) => {
            await tx.exec(sql);
          },
        }),
      ),
    async exec(sql) {
      await lite.exec(sql);
    },
    close: () => lite.close(),
  };
}

/** Whether an embedded database was ever created in this directory. */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, 'PG_VERSION'));
}

// The names are the configuration's own (src/config.ts), so a loaded Config opens its database as it is.
export interface OpenDbOptions {
  databaseUrl?: string;
  dataDir: string;
  /** shared_buffers of the embedded database. */
  embeddedSharedBuffers?: string;
  /** The embedded database on a thread of its own (the default); false: on this thread. */
  embeddedThread?: boolean;
  /** Told, for a log line, when the embedded data directory had to be made private. */
  onTightened?: (message: string) => void;
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  if (options.databaseUrl) return createPostgresDb({ connectionString: options.databaseUrl });
  return createPgliteDb({
    dataDir: options.dataDir,
    sharedBuffers: options.embeddedSharedBuffers,
    thread: options.embeddedThread,
    onTightened: options.onTightened,
  });
}

/** Postgres error codes the services branch on. */
export const PgErrorCode = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
} as const;

export function pgErrorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string')
    return error.code;
  return undefined;
}

/** The constraint (or unique index) a database error names, e.g. which key a 23505 hit. */
export function pgConstraint(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'constraint' in error && typeof error.constraint === 'string')
    return error.constraint;
  return undefined;
}

/** Socket errors of a connection to the database that could not be made or was lost. */
const connectionErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that cannot serve the session: class 08 (connection exception),
 * 57P01-57P03 (terminated by an administrator, crash or restart, not yet accepting
 * connections) and 53300 (too many connections).
 */
const unavailableStates = /^(08...|57P0[1-3]|53300)$/;

/**
 * node-postgres and PGlite report a lost connection or a closed database without a code,
 * only in words: a connection that ended mid-query, a client the pool can no longer use, a
 * connect that timed out, an embedded database already closed.
 */
const unavailableMessages =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection terminated due to connection timeout|PGlite is closed/i;

/**
 * Whether an error means the database cannot be reached right now (refused, lost, shutting
 * down), as opposed to a statement it refused. Such a request may succeed once the pool has
 * reconnected, which it does on its own: the HTTP layer answers 503 database_unavailable.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner)))
    return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrnos.has(code) || unavailableStates.test(code))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && unavailableMessages.test(message);
}
