// OneRoster pull worker: every `pollMs` it claims the sources that are due, or whose pull an
// admin asked for ("Sync now", src/domain/oneroster/pull/requests.ts; those first), FOR UPDATE
// SKIP LOCKED under a lease (src/domain/oneroster/pull/pull.ts), and pulls them one after another:
// a pull is long and heavy (a whole roster), so one at a time per worker. Any number of
// workers share the schedule; a worker that dies mid-pull lets its source fall due again when
// the lease lapses. A "Sync now" answered by this process rings the process's pullRequested
// signal (src/domain/deps.ts), which a started worker listens to: the pull starts at once;
// another process's worker finds it within `pollMs`.

import { claimDueSources, type PullDeps, pullSource } from '../domain/oneroster/pull/pull.ts';
import { workerJob } from '../lib/telemetry/jobs.ts';
import { type WorkerLogger, workerLoop } from './worker-loop.ts';

export type OneRosterWorkerLogger = Pick<WorkerLogger, 'info' | 'error'>;

export interface OneRosterWorkerOptions {
  deps: PullDeps;
  logger?: OneRosterWorkerLogger;
  pollMs?: number;
  /** Only these institutions' sources (tests; dedicated workers). */
  institutionIds?: string[];
}

export function createOneRosterPullWorker(options: OneRosterWorkerOptions) {
  // Short, so a pull asked for in another process (ssp worker) starts soon: the claim is one
  // indexed query of a small table.
  const pollMs = options.pollMs ?? 15_000;
  const log = options.logger;

  /** Claims one due source and pulls it; returns how many were pulled (0 or 1). */
  async function runOnce(): Promise<{ claimed: number; ok: number; failed: number }> {
    const claimed = await claimDueSources(options.deps, 1, options.institutionIds);
    const summary = { claimed: claimed.length, ok: 0, failed: 0 };
    for (const source of claimed) {
      try {
        const outcome = await workerJob(
          'oneroster',
          () =>
            pullSource(options.deps, source, { trigger: source.requested_run_id ? 'manual' : 'schedule' }),
          { attributes: { 'ssp.institution_id': source.institution_id }, outcome: (done) => done.status },
        );
        summary[outcome.status === 'ok' ? 'ok' : 'failed']++;
        if (outcome.status === 'failed')
          log?.info({ institution_id: source.institution_id, error: outcome.error }, 'OneRoster pull failed');
      } catch (error) {
        summary.failed++;
        log?.error(
          { err: error, institution_id: source.institution_id },
          'a OneRoster pull could not be applied',
        );
      }
    }
    return summary;
  }

  // A round that pulled something: another source may be due, look again at once.
  const loop = workerLoop('OneRoster pull worker', log, runOnce, {
    full: (claimed) => claimed > 0,
    pollMs,
    failed: 'claiming OneRoster sources failed',
  });

  let unlisten: (() => void) | undefined;
  return {
    runOnce,
    start(): void {
      if (loop.running) return;
      loop.start();
      unlisten = options.deps.pullRequested.listen(() => loop.wake());
    },
    /** Claims at once (a pull was asked for) rather than after the sleep; nothing when not started. */
    wake: loop.wake,
    /** Stops claiming; a pull in flight is waited for at most `stopWaitMs` (its lease then lapses). */
    stop: (stopWaitMs?: number) => {
      unlisten?.();
      unlisten = undefined;
      return loop.stop(stopWaitMs);
    },
  };
}

export type OneRosterPullWorker = ReturnType<typeof createOneRosterPullWorker>;
