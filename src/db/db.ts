// The database seam: every query in the service goes through `query` (or `transaction`,
// which hands the callback a `Queryable` bound to one transaction). Two adapters implement
// it: node-postgres for PostgreSQL and PGlite for the embedded default. Both return the
// same JavaScript types (int8 as number, timestamptz as Date, json as objects).
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { makePrivateDir, restrictUmask, tightenPrivateDir } from '../lib/data-dir.ts';
import { createSignal, type Signal } from '../lib/signal.ts';
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
  /**
   * The same database for background work (workers, roster pushes), when its turns can come after
   * requests': on the embedded database, one session, its statements and transactions wait while
   * requests' wait (pglite-worker.js). Absent where every caller has a connection of its own.
   */
  readonly background?: Db;
  /**
   * The embedded database only: told each time a transaction has committed, whichever session ran
   * it. Every write to the embedded database comes from this process (its data directory is locked
   * to it) and every event is recorded in a transaction, so a worker waiting for new rows listens
   * here and need not poll often (the webhook worker, src/workers/webhook-delivery.ts). Absent on
   * PostgreSQL, which other processes write to as well.
   */
  readonly commits?: Pick<Signal, 'listen'>;
}

/** The database as background work should use it: `db.background` where there is one, else `db`. */
export function forBackground(db: Db): Db {
  return db.background ?? db;
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
   * PostgreSQL's shared_buffers inside PGlite (default 16MB; PGlite's own is 128MB). PGlite's
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

export const DEFAULT_EMBEDDED_SHARED_BUFFERS = '16MB';

/**
 * PostgreSQL's settings in the embedded database, given on PGlite's command line. PGlite runs
 * PostgreSQL as one single-user session, yet PostgreSQL sizes its shared memory for the
 * connections, autovacuum workers and WAL senders PGlite's postgresql.conf allows (100, 16 and
 * 10): their entries and the lock tables sized by them, zeroed at start in the WebAssembly
 * memory, which keeps every page it touched (4 MB; shared_buffers is touched whole, which is why
 * it is small). Ten connections' worth stays, with room in the lock table for a transaction
 * that locks a few thousand relations (256 a slot).
 */
export function embeddedSettings(sharedBuffers: string): string[] {
  return [
    `shared_buffers=${sharedBuffers}`,
    'max_connections=10',
    'autovacuum_worker_slots=1',
    'max_wal_senders=0',
    'max_replication_slots=0',
    'max_locks_per_transaction=256',
  ];
}

/** The embedded database directory is open in another process. */
export {
  DatabaseInUseError,
  isDatabaseUnavailable,
  PgErrorCode,
  pgConstraint,
  pgErrorCode,
} from './errors.ts';

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
  const settings = embeddedSettings(options.sharedBuffers ?? DEFAULT_EMBEDDED_SHARED_BUFFERS);
  const embedded = { dataDir, loadDataDir: options.loadDataDir, settings };
  let session: ThreadedPglite;
  try {
    session =
      options.thread === false
        ? // PGlite's modules are loaded only here: on its own thread, the server's thread never holds them.
          await (await import('./pglite-here.ts')).openPgliteHere(embedded)
        : await startPgliteThread(embedded);
  } catch (error) {
    unlock();
    throw error;
  }
  // A new cluster is written 0666 and the relation-cache files are rewritten 0644 at each start.
  if (dataDir) tightenPrivateDir(dataDir);
  const close = async () => {
    await session.close();
    if (dataDir) tightenPrivateDir(dataDir);
    unlock();
  };
  const commits = createSignal();
  /** Runs the transaction on `on`, and tells `commits` once it has committed. */
  const committing =
    (on: ThreadedPglite['background']): Db['transaction'] =>
    async (fn) => {
      const result = await on.transaction(fn);
      commits.notify();
      return result;
    };
  const background: Db = {
    kind: 'pglite',
    query: (sql, params) => session.background.query(sql, params),
    transaction: committing(session.background),
    exec: (sql) => session.background.exec(sql),
    close,
    commits,
  };
  return {
    kind: 'pglite',
    query: (sql, params) => session.query(sql, params),
    transaction: committing(session),
    exec: (sql) => session.exec(sql),
    dump: () => session.dump(),
    close,
    background,
    commits,
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
