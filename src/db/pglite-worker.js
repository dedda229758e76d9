// The thread that owns the embedded database (pglite-thread.ts starts it). PGlite does its work
// synchronously on the thread that calls it, so here a long statement holds only this thread,
// never the server's event loop. PGlite is one session: its own lock keeps a transaction's
// statements together (a statement from outside waits until the transaction ends), and this
// thread only relays, statement by statement, what the server's thread asks for.
//
// Plain JavaScript, its messages typed in pglite-protocol.ts: a worker started on a .ts file
// loads Node's TypeScript stripper into its own heap (some 12 MB for the life of the process).
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const INT8_OID = 20;
/** @type {import('./pglite-protocol.ts').WorkerOptions} */
const options = workerData;
const port = parentPort;

/** Own primitive fields of a database error (code, constraint, detail …), which a clone drops. */
/** @returns {import('./pglite-protocol.ts').SerializedError} */
function serializeError(error) {
  if (!(error instanceof Error)) return { message: String(error), name: 'Error', fields: {} };
  /** @type {Record<string, string | number | boolean>} */
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      fields[key] = value;
  }
  return { message: error.message, name: error.name, stack: error.stack, fields };
}

/** @param {import('./pglite-protocol.ts').Reply} message */
const reply = (message) => port.postMessage(message);
const fail = (id, error) => reply({ id, error: serializeError(error) });

/** What ends a transaction's callback for a rollback (not an error to report). */
const ROLLBACK = Symbol('rollback');

/** PGlite reports affectedRows 0 for a SELECT; pg's rowCount counts the rows returned there. */
const shape = (result) => ({
  rows: result.rows,
  rowCount: Math.max(result.affectedRows ?? 0, result.rows.length),
});

async function start() {
  const lite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    parsers: { [INT8_OID]: (value) => Number(value) },
    // Trigram indexes serve the inbox's search (migration 0086), as on PostgreSQL.
    extensions: { pg_trgm },
    // On the command line, not in postgresql.conf, which PGlite would rewrite whole.
    startParams: [...PGlite.defaultStartParams, ...options.settings.flatMap((setting) => ['-c', setting])],
  });
  /** Open transactions by id: PGlite's handle, how to end the callback holding it, and its end. */
  const open = new Map();

  const target = (txId) => {
    if (txId === undefined) return lite;
    const entry = open.get(txId);
    if (!entry) throw new Error('the transaction has already ended');
    return entry.tx;
  };

  /** Answered once PGlite's lock is held and BEGIN ran (or with why not). */
  const begin = (id) => {
    let entered = false;
    /** @type {Promise<void>} */
    const ended = lite.transaction(
      (tx) =>
        new Promise((commit, rollback) => {
          entered = true;
          open.set(id, { tx, commit: () => commit(), rollback: () => rollback(ROLLBACK), ended });
          reply({ id, ok: true });
        }),
    );
    // After the callback was entered, the 'end' request reports how it ended.
    ended.catch((error) => {
      if (!entered) fail(id, error);
    });
  };

  const end = async (id, txId, commit) => {
    const entry = open.get(txId);
    if (!entry) return reply({ id, ok: true });
    if (commit) entry.commit();
    else entry.rollback();
    try {
      await entry.ended;
      reply({ id, ok: true });
    } catch (error) {
      if (error === ROLLBACK) reply({ id, ok: true });
      else fail(id, error);
    } finally {
      open.delete(txId);
    }
  };

  /** @param {import('./pglite-protocol.ts').Request} request */
  const handle = async (request) => {
    switch (request.op) {
      case 'query':
        return reply({
          id: request.id,
          ok: true,
          result: shape(await target(request.tx).query(request.sql, request.params)),
        });
      case 'exec':
        await target(request.tx).exec(request.sql);
        return reply({ id: request.id, ok: true });
      case 'begin':
        return begin(request.id);
      case 'end':
        return end(request.id, request.tx, request.commit);
      case 'dump':
        return reply({ id: request.id, ok: true, result: await lite.dumpDataDir('none') });
      case 'close':
        await lite.close();
        reply({ id: request.id, ok: true });
        port.close();
    }
  };

  port.on('message', (request) => {
    handle(request).catch((error) => fail(request.id, error));
  });
  reply({ id: 0, ok: true });
}

start().catch((error) => fail(0, error));
