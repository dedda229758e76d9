// The embedded database on a thread of its own (pglite-worker.js): the server's thread sends each
// statement and awaits its rows, so however long PGlite works on a statement (a feed's thousands
// of rows, a vacuum), requests keep being answered. A transaction is a lane: `begin` is answered
// once PGlite's lock is held, the callback's statements go to that transaction, and `end`
// commits or rolls back, whatever the callback did (other statements wait in the worker, as they
// would in PGlite's own queue). Errors come back with their fields (code, constraint, …), so the
// error mapping sees what it saw with PGlite in this thread. `background` is the same database for
// background work: its statements and transactions take their turn after requests' (the worker's
// comment says how, and how it is kept from starving).
import { Worker } from 'node:worker_threads';
import type { Reply, Request, SerializedError, WorkerOptions } from './pglite-protocol.ts';

interface Result<T> {
  rows: T[];
  rowCount: number;
}

interface Statements {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Result<T>>;
  exec(sql: string): Promise<void>;
}

interface Session extends Statements {
  transaction<T>(fn: (tx: Statements) => Promise<T>): Promise<T>;
}

/** What db.ts wraps into its Db (the shape of its `Db`, without importing it). */
export interface ThreadedPglite extends Session {
  /** The same database for background work, whose turns come after requests'. */
  background: Session;
  dump(): Promise<Blob>;
  close(): Promise<void>;
}

/** Rebuilds the worker's error: same message, name and fields, so pgErrorCode and friends work. */
function revive(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  Object.assign(error, serialized.fields);
  error.name = serialized.name;
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}

type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

export async function startPgliteThread(options: WorkerOptions): Promise<ThreadedPglite> {
  const worker = new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: options });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  /** Why the thread can no longer answer (closed, or crashed); words isDatabaseUnavailable knows. */
  let gone: string | undefined;

  // The thread keeps the process alive only while a statement is awaited (as PGlite in this
  // thread never kept it alive by itself): a process that forgets to close still exits.
  const settled = () => {
    if (pending.size === 0) worker.unref();
  };
  const failAll = (message: string) => {
    gone ??= message;
    for (const { reject } of pending.values()) reject(new Error(gone));
    pending.clear();
  };
  worker.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if ('error' in reply) waiting.reject(revive(reply.error));
    else waiting.resolve(reply.result);
    settled();
  });
  worker.on('error', (error) => failAll(`PGlite is closed: its thread failed (${error.message})`));
  worker.on('exit', () => failAll('PGlite is closed'));

  const call = <T>(body: RequestBody, id = nextId++): Promise<T> => {
    if (gone) return Promise.reject(new Error(gone));
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.ref();
      try {
        worker.postMessage({ ...body, id });
      } catch (error) {
        // A parameter that cannot be cloned (a function, say): refused here, as PGlite would.
        pending.delete(id);
        settled();
        reject(error as Error);
      }
    });
  };

  // The start's answer (id 0): ready, or why PGlite would not open.
  await new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject });
  }).catch(async (error) => {
    await worker.terminate();
    throw error;
  });
  settled();

  const statements = (tx: number | undefined, background: boolean): Statements => ({
    query: <T>(sql: string, params?: unknown[]) =>
      call<Result<T>>({ op: 'query', sql, params, tx, background }),
    exec: async (sql: string) => {
      await call({ op: 'exec', sql, tx, background });
    },
  });
  const session = (background: boolean): Session => ({
    ...statements(undefined, background),
    async transaction<T>(fn: (tx: Statements) => Promise<T>): Promise<T> {
      const tx = nextId++;
      await call({ op: 'begin', background }, tx);
      let result: T;
      try {
        result = await fn(statements(tx, background));
      } catch (error) {
        // The lane is given back whatever happens; the callback's error is the one reported.
        await call({ op: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
  });

  return {
    ...session(false),
    background: session(true),
    dump: () => call<Blob>({ op: 'dump' }),
    async close() {
      if (gone) return;
      await call({ op: 'close' });
      gone = 'PGlite is closed';
      await worker.terminate();
    },
  };
}
