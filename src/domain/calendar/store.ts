// Writes a feed's occurrences to match a fresh parse in two steps. First staging
// (stageOccurrences): the stored keys and content hashes are read a page at a time and handed to
// the parse worker, which works out the diff (diff.ts); its writes come back one batch at a time
// and each is written to calendar_event_changes (migration 0111) by one statement of its own,
// outside any transaction. Then applying (applyStaged, in the fetch's one transaction with its
// record): three set-based statements move the staged writes into calendar_events. Never a query
// per row.
//
// Why staged: the embedded database is one session, so a transaction holds it for every request
// until it ends, and a feed's store of tens of thousands of occurrences in one transaction held
// it for seconds (53,000 events: docs/performance.md). Staged, each statement is one short turn,
// requests' statements go between them, and the one transaction is the apply alone: a reader
// still sees the stored occurrences or the new ones, never half a feed, and a fetch that fails
// before the apply leaves the stored ones as they were. The keys are read outside a transaction
// too: only the holder of the feed's claim writes its occurrences, and the apply checks the claim
// first (refresh.ts), so what was read is what is stored when the apply runs.
//
// Statements are sized as they go so each takes about TARGET_STATEMENT_MS of this thread's CPU
// time (PGlite on this thread: EMBEDDED_DATABASE_THREAD=off; on its own thread they grow to the
// bound). PostgreSQL runs statements on its server, so its batches are fixed and larger.

import type { Db, Queryable } from '../../db/db.ts';
import type { DiffCounts, StoredKey, WriteBatch } from './diff.ts';
import { selectStoredKeys } from './sql/occurrences.ts';
import { type Staging, stageDeletes, stageRows } from './sql/staging.ts';

export { applyStaged, dropStaged, type Staging, vacuumStaged } from './sql/staging.ts';

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

/** Stages the diff's writes of a feed (see the top); each statement on `db` stands alone. */
export async function stageOccurrences(
  db: Queryable,
  staging: Staging,
  source: DiffSource,
  sizes: BatchSizes,
): Promise<DiffCounts> {
  const { feedId } = staging;
  // Keyset pages on the (feed_id, uid, recurrence_id) index, sized like the writes.
  let after: StoredKey | undefined;
  let pageRows = sizes.read;
  for (;;) {
    const started = cpuMs();
    const rows = await selectStoredKeys(db, feedId, after, pageRows);
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
    await stage(db, staging, next);
    if (sizes.adaptive) rows = nextSize(rows, cpuMs() - started);
    await turn();
  }
}

/**
 * Lets the event loop run its timers and I/O between two statements: PGlite answers within
 * promise jobs, so without this a run of statements would be one uninterrupted chain and
 * requests would still wait for all of it.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function stage(db: Queryable, staging: Staging, batch: WriteBatch) {
  if (batch.kind === 'delete') await stageDeletes(db, staging, batch.ids);
  else await stageRows(db, staging, batch.kind, batch.json);
}
