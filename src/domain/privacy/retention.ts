// Retention (docs/privacy.md, "How long"): for one institution, everything past its period is
// erased as an erasure does it, in bounded batches (each its own statement or transaction), with
// a pause between batches so that requests served by the same process and database keep being
// answered. A run records what it removed (the health page shows the latest). Archived
// institutions are swept too: keeping data past its time is not a way to pause an institution.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { ERASURE_BATCH, eraseBatch } from './erasure.ts';
import { allowErasure, redactRequests } from './queries/erasure.ts';
import {
  clearAttemptBodies,
  clearRunErrors,
  deleteAccessLog,
  deleteNotifications,
  departedStudentsBefore,
  recordRetentionRun,
  resolvedRequestsBefore,
  selectSettings,
} from './queries/retention.ts';
import { cutoff, periodsOf, type RetentionKind } from './retention-periods.ts';

export interface RetentionOptions {
  /** Rows (or students) per batch. */
  batch: number;
  /** Batches per kind per run, so that one run stays bounded; the next run goes on. */
  maxBatches: number;
  /** Pause between batches, in ms (0 in tests). */
  pauseMs: number;
}

// A batch of 200 requests keeps a page request's wait behind it short on the embedded database,
// which runs one transaction at a time (bench/privacy.ts); 100 batches of each kind an hour.
export const DEFAULT_RETENTION: RetentionOptions = { batch: 200, maxBatches: 100, pauseMs: 20 };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Sweep = (
  deps: { db: Db; clock: Clock },
  institutionId: string,
  before: Date,
  limit: number,
) => Promise<number>;

/** One batch of each kind: how many rows (or students) it removed. */
const sweeps: Record<RetentionKind, Sweep> = {
  departed_students: async (deps, institutionId, before, limit) => {
    const ids = await departedStudentsBefore(deps.db, institutionId, before, Math.min(limit, ERASURE_BATCH));
    if (ids.length === 0) return 0;
    const { erased } = await eraseBatch(deps, institutionId, ids, {
      reason: 'retention',
      erasedBy: 'retention',
    });
    return erased.length;
  },
  resolved_requests: async (deps, institutionId, before, limit) => {
    const ids = await resolvedRequestsBefore(deps.db, institutionId, before, limit);
    if (ids.length === 0) return 0;
    await deps.db.transaction(async (tx) => {
      await allowErasure(tx);
      await redactRequests(tx, institutionId, ids, deps.clock.now());
    });
    return ids.length;
  },
  run_errors: (deps, id, before, limit) => clearRunErrors(deps.db, id, before, limit),
  webhook_bodies: (deps, id, before, limit) => clearAttemptBodies(deps.db, id, before, limit),
  notifications: (deps, id, before, limit) => deleteNotifications(deps.db, id, before, limit),
  access_log: (deps, id, before, limit) => deleteAccessLog(deps.db, id, before, limit),
};

/** Runs every kind for one institution; records and returns what went (empty when nothing). */
export async function runRetention(
  deps: { db: Db; clock: Clock },
  institutionId: string,
  options: RetentionOptions = DEFAULT_RETENTION,
): Promise<Partial<Record<RetentionKind, number>>> {
  const startedAt = deps.clock.now();
  const periods = periodsOf(await selectSettings(deps.db, institutionId));
  const removed: Partial<Record<RetentionKind, number>> = {};
  for (const [kind, sweep] of Object.entries(sweeps) as [RetentionKind, Sweep][]) {
    const before = cutoff(startedAt, periods[kind]);
    for (let i = 0; i < options.maxBatches; i++) {
      const n = await sweep(deps, institutionId, before, options.batch);
      if (n === 0) break;
      removed[kind] = (removed[kind] ?? 0) + n;
      if (options.pauseMs > 0) await pause(options.pauseMs);
    }
  }
  if (Object.keys(removed).length > 0) {
    await recordRetentionRun(deps.db, { institutionId, startedAt, finishedAt: deps.clock.now(), removed });
  }
  return removed;
}
