// Writes a feed's occurrences to match a fresh parse, inside the caller's transaction (a fetch
// that fails later leaves the stored events as they were). Set-based and in batches: the stored
// keys and content hashes are read a page at a time and handed to the parse worker, which works
// out the diff (diff.ts); its writes come back one batch at a time, each one DELETE, UPDATE or
// INSERT from an id array or a JSON record set. Never a query per row.
//
// Why batches rather than one statement each: the embedded database (PGlite) runs in this
// thread, so a statement over 100,000 rows would hold the event loop for seconds. Its batches
// are sized as they go so each statement takes about TARGET_STATEMENT_MS of this thread's CPU
// time (a slower machine gets smaller ones; CPU time rather than elapsed time, so that waiting
// for a CPU on a busy machine does not shrink them to nothing), and the loop gets a turn between
// two statements. PostgreSQL runs statements
// on its server, so its batches are fixed and larger (fewer round trips).

import type { Db, Queryable } from '../../db/db.ts';
import type { DiffCounts, StoredKey, WriteBatch } from './diff.ts';
import {
  deleteStoredEvents,
  insertStoredEvents,
  selectStoredKeys,
  updateStoredEvents,
} from './sql/occurrences.ts';

/** The diff's side of storing: the parse job (parse-job.ts), or anything shaped like it. */
export interface DiffSource {
  sendStored(rows: StoredKey[]): void;
  nextWrite(maxRows: number): Promise<WriteBatch | DiffCounts>;
}

export interface BatchSizes {
  /** Rows of the first write statement; with `adaptive`, later ones are sized by its time. */
  write: number;
  /** Stored keys of the first page read; with `adaptive`, later pages are sized by its time. */
  read: number;
  adaptive: boolean;
}

/** CPU time one PGlite statement should hold the event loop for. */
export const TARGET_STATEMENT_MS = 15;

export function batchSizes(kind: Db['kind']): BatchSizes {
  return kind === 'pglite'
    ? { write: 200, read: 500, adaptive: true }
    : { write: 5_000, read: 10_000, adaptive: false };
}

/** Bounds of an adaptive batch: one statement's time is noisy, so never far off. */
const MIN_ROWS = 50;
const MAX_ROWS = 300;

function nextSize(rows: number, ms: number): number {
  const scaled = rows * (TARGET_STATEMENT_MS / Math.max(ms, 1));
  // At most doubling at a time: one fast statement is not proof that a much larger one is.
  return Math.round(Math.min(Math.max(scaled, MIN_ROWS), rows * 2, MAX_ROWS));
}

/** This thread's CPU time so far, in ms (PGlite's work is done on it). */
function cpuMs(): number {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}

const isBatch = (value: WriteBatch | DiffCounts): value is WriteBatch => 'kind' in value;

export async function storeOccurrences(
  tx: Queryable,
  institutionId: string,
  feedId: string,
  source: DiffSource,
  now: Date,
  sizes: BatchSizes,
): Promise<DiffCounts> {
  // Keyset pages on the (feed_id, uid, recurrence_id) index, sized like the writes.
  let after: StoredKey | undefined;
  let pageRows = sizes.read;
  for (;;) {
    const started = cpuMs();
    const rows = await selectStoredKeys(tx, feedId, after, pageRows);
    if (rows.length > 0) source.sendStored(rows);
    if (rows.length < pageRows) break;
    after = rows[rows.length - 1];
    if (sizes.adaptive) pageRows = nextSize(pageRows, cpuMs() - started);
    await turn();
  }

  // The next batch is asked for before the current one is written, so the worker serializes it
  // while the database works (it is then sized by the statement before last).
  let rows = sizes.write;
  const ask = () => {
    const asked = source.nextWrite(rows);
    asked.catch(() => {}); // awaited below; a write that fails first must not leave it unhandled
    return asked;
  };
  let pending = ask();
  for (;;) {
    const next = await pending;
    if (!isBatch(next)) return next;
    pending = ask();
    const started = cpuMs();
    await write(tx, institutionId, feedId, next, now);
    if (sizes.adaptive) rows = nextSize(rows, cpuMs() - started);
    await turn();
  }
}

/**
 * Lets the event loop run its timers and I/O between two statements: PGlite answers within
 * promise jobs, so without this a whole transaction of batches would run as one uninterrupted
 * chain and requests would still wait for all of it.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function write(tx: Queryable, institutionId: string, feedId: string, batch: WriteBatch, now: Date) {
  if (batch.kind === 'delete') await deleteStoredEvents(tx, feedId, batch.ids);
  else if (batch.kind === 'update') await updateStoredEvents(tx, feedId, batch.json, now);
  else await insertStoredEvents(tx, institutionId, feedId, batch.json, now);
}
