// Retention worker: every `pollMs` (an hour by default) it sweeps each institution once
// (src/domain/privacy/retention.ts): what has passed its period is erased in bounded batches.
// Several workers may run at once: every batch selects what is still there and erasing twice
// changes nothing, so they only share the work less efficiently.
import type { Db } from '../db/db.ts';
import { institutionIds } from '../domain/privacy/queries/retention.ts';
import { DEFAULT_RETENTION, type RetentionOptions, runRetention } from '../domain/privacy/retention.ts';
import type { Clock } from '../lib/clock.ts';
import { workerJob } from '../lib/telemetry/jobs.ts';
import { type WorkerLogger, workerLoop } from './worker-loop.ts';

export type RetentionWorkerLogger = Pick<WorkerLogger, 'info' | 'error'>;

export function createRetentionWorker(options: {
  db: Db;
  clock: Clock;
  logger?: RetentionWorkerLogger;
  pollMs?: number;
  retention?: Partial<RetentionOptions>;
}) {
  const deps = { db: options.db, clock: options.clock };
  const settings = { ...DEFAULT_RETENTION, ...options.retention };
  const log = options.logger;

  /** One sweep of every institution; the total removed. */
  async function runOnce(): Promise<{ claimed: number }> {
    let total = 0;
    for (const id of await institutionIds(options.db)) {
      try {
        const removed = await workerJob('retention', () => runRetention(deps, id, settings), {
          attributes: { 'ssp.institution_id': id },
        });
        const n = Object.values(removed).reduce((a, b) => a + (b ?? 0), 0);
        if (n > 0) log?.info({ institution_id: id, removed }, 'retention removed data past its period');
        total += n;
      } catch (error) {
        log?.error({ err: error, institution_id: id }, 'retention run failed');
      }
    }
    return { claimed: total };
  }

  const loop = workerLoop('retention worker', log, runOnce, {
    // A sweep always finishes what each run allows; the next one waits for the interval.
    full: () => false,
    pollMs: options.pollMs ?? 3_600_000,
    failed: 'retention sweep failed',
  });

  return { runOnce, start: loop.start, stop: loop.stop };
}

export type RetentionWorker = ReturnType<typeof createRetentionWorker>;
