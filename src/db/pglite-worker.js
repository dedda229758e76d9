// The thread that owns the embedded database (pglite-thread.ts starts it). PGlite does its work
// synchronously on the thread that calls it, so here a long statement holds only this thread,
// never the server's event loop.
//
// PGlite is one session, so everything that needs the database takes turns: a statement outside
// a transaction holds it until it answers, a transaction (a lane) from its BEGIN until its end,
// and a transaction's own statements go straight to it. Who gets the next turn is decided here,
// not in PGlite's queue: what waits is kept in two queues, requests' (interactive) and
// background work's (the workers' statements and transactions, and roster pushes: bulk writes a
// person is not watching; db.ts's `background` Db tags them). When the database is free, the
// oldest interactive item goes first, so a console page's statement waits for at most the
// statement or lane in progress, never for the background work queued before it. A lane once
// begun keeps the database until it ends, whoever asks meanwhile: priority orders turns, it never
// interrupts one. A request sends its statements one after another (a console page: its session,
// then its rows, then its counts), so after an interactive turn, with nothing interactive waiting,
// the database is kept free GRACE_MS for the next one before background work gets it: otherwise a
// page of several statements would wait for as many background lanes, not one. Background work
// loses at most GRACE_MS per interactive turn to this, and none while requests keep it busy.
//
// Nothing starves: the oldest background item goes first, interactive items waiting or not, once
// MAX_AHEAD interactive turns have gone ahead of background work since it last had one, or once
// the first of them went ahead MAX_WAIT_MS ago. Under a steady flood of requests background work
// still gets at least one turn in MAX_AHEAD + 1, and waits at most MAX_WAIT_MS plus the turn in
// progress for it. What counts is the time requests went ahead, not how long background work has
// queued: background work queues behind itself for seconds on a busy database (a roster page's
// lane after another), and a rule on its age alone would put it ahead of every request then.
//
// Plain JavaScript, its messages typed in pglite-protocol.ts: a worker started on a .ts file
// loads Node's TypeScript stripper into its own heap (some 12 MB for the life of the process).
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const INT8_OID = 20;
/** Interactive turns in a row while background work waits, before background work gets one. */
const MAX_AHEAD = 8;
/** How long requests may go ahead of waiting background work before it gets a turn. */
const MAX_WAIT_MS = 500;
/** How long the database is kept free for a request's next statement before background work gets it. */
const GRACE_MS = 10;
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
  const turns = createTurns();

  const target = (txId) => {
    if (txId === undefined) return lite;
    const entry = open.get(txId);
    if (!entry) throw new Error('the transaction has already ended');
    return entry.tx;
  };

  /**
   * Answered once PGlite's lock is held and BEGIN ran (or with why not). The turn lasts until the
   * transaction has ended, however it ends.
   */
  const begin = (id, done) => {
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
    ended.then(done, done);
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

  /** A turn of the database: runs the request, then calls `done` once the database is free. */
  const take = (request, done) => {
    if (request.op === 'begin') return begin(request.id, done);
    run(request)
      .catch((error) => fail(request.id, error))
      .finally(done);
  };

  /** @param {import('./pglite-protocol.ts').Request} request */
  const run = async (request) => {
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
    // A transaction's own statements and its end go to it at once: it holds the database.
    const inLane = request.op === 'end' || ((request.op === 'query' || request.op === 'exec') && request.tx);
    if (inLane) run(request).catch((error) => fail(request.id, error));
    else turns.wait(request, request.background === true, take);
  });
  reply({ id: 0, ok: true });
}

/**
 * The two queues and whose turn is next (the comment at the top says why and how). `wait` queues
 * an item; when the database is free, the next item's `take` runs it and calls `done` once the
 * database is free again.
 */
function createTurns() {
  /** @type {{ item: unknown, take: Function, at: number }[]} */
  const interactive = [];
  /** @type {{ item: unknown, take: Function, at: number }[]} */
  const background = [];
  let busy = false;
  /** Interactive turns taken since background work last had one, while some waited. */
  let ahead = 0;
  /** When the first of those turns was taken. */
  let aheadSince = 0;
  /** While set, the database is kept for a request's next statement (GRACE_MS after its last). */
  let grace;

  /** Whether the oldest background item must go next, interactive items waiting or not. */
  const overdue = () => ahead > 0 && (ahead >= MAX_AHEAD || performance.now() - aheadSince >= MAX_WAIT_MS);

  const next = () => {
    if (background.length === 0) {
      ahead = 0;
      return interactive.shift();
    }
    if (interactive.length === 0 || overdue()) {
      if (grace && !overdue()) return undefined;
      ahead = 0;
      return background.shift();
    }
    if (ahead++ === 0) aheadSince = performance.now();
    return interactive.shift();
  };

  const pump = () => {
    if (busy) return;
    const turn = next();
    if (!turn) return;
    clearTimeout(grace);
    grace = undefined;
    busy = true;
    let freed = false;
    const wasInteractive = turn.interactive;
    turn.take(turn.item, () => {
      if (freed) return;
      freed = true;
      busy = false;
      // A request sends its statements one after another: keep the database for its next one a
      // moment, rather than let a background lane in between each two.
      if (wasInteractive && interactive.length === 0 && background.length > 0 && !overdue()) {
        grace = setTimeout(() => {
          grace = undefined;
          pump();
        }, GRACE_MS);
      }
      pump();
    });
  };

  return {
    wait(item, isBackground, take) {
      (isBackground ? background : interactive).push({
        item,
        take,
        at: performance.now(),
        interactive: !isBackground,
      });
      pump();
    },
  };
}

start().catch((error) => fail(0, error));
