// Upkeep of the delivery log: pruning finished deliveries past their retention, and vacuuming
// the queue on embedded PGlite.
//
// Pruning costs one DELETE of at most PRUNE_BATCH deliveries (their attempts go by cascade), at
// most once an hour per worker, when idle. A failed prune is logged and tried again next hour.
import type { Db } from '../../../db/db.ts';
import type { Clock } from '../../../lib/clock.ts';
import { deleteFinishedDeliveries } from './sql/prune-deliveries.ts';

/** Default retention of the delivery log. */
export const RETENTION_MS = 30 * 86_400_000;
export const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;
const VACUUM_EVERY = 2_000;

/**
 * Deletes finished deliveries (with their attempts) whose event is older than `cutoff`, a
 * bounded batch at a time; returns how many were deleted.
 */
export async function pruneDeliveries(
  db: Db,
  cutoff: Date,
  institutionIds: string[] | null,
): Promise<number> {
  return deleteFinishedDeliveries(db, cutoff, PRUNE_BATCH, institutionIds);
}

/** A worker's pruning: prune() at once (tools, tests), pruneWhenDue() at most every PRUNE_EVERY_MS. */
export function createPruner(deps: {
  db: Db;
  clock: Clock;
  retentionMs: number;
  institutionIds: string[] | null;
  log?: { info(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}) {
  const { clock, log } = deps;
  /** Deletes finished deliveries past the retention, a bounded batch; returns how many. */
  function prune(): Promise<number> {
    return pruneDeliveries(deps.db, new Date(clock.now().getTime() - deps.retentionMs), deps.institutionIds);
  }
  let lastPrune = 0;
  async function pruneWhenDue(): Promise<void> {
    const now = clock.now().getTime();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    try {
      const deleted = await prune();
      if (deleted > 0) log?.info({ deleted }, 'pruned old webhook deliveries');
    } catch (error) {
      log?.error({ err: error }, 'pruning webhook deliveries failed');
    }
  }
  return { prune, pruneWhenDue };
}

/**
 * Embedded PGlite has no autovacuum: without it, dead versions of the queue's rows pile up in
 * the due index and every claim wades through them. The worker vacuums the queue table itself
 * there after every few thousand recorded results. (PostgreSQL: autovacuum, tuned for this
 * table in the migration.)
 */
export function createVacuumer(db: Db) {
  let recordedSinceVacuum = 0;
  return async (recorded: number): Promise<void> => {
    if (db.kind !== 'pglite') return;
    recordedSinceVacuum += recorded;
    if (recordedSinceVacuum < VACUUM_EVERY) return;
    recordedSinceVacuum = 0;
    await db.exec('VACUUM (ANALYZE) webhook_deliveries');
  };
}
