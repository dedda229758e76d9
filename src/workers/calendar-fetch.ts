// Calendar fetch worker: every `pollMs` it claims the feeds that are due (FOR UPDATE SKIP
// LOCKED under a lease, src/domain/calendar/refresh.ts) and fetches up to `concurrency` of them
// at once, each recorded in its own transaction. Any number of workers, in one process or
// many, share the schedule: a feed is claimed by one of them at a time, and a worker that dies
// mid-fetch lets its feeds fall due again when their leases expire.
//
// The clock is injected: tests drive the schedule with runOnce() and a clock they move.

import type dns from 'node:dns';
import type { Db } from '../db/db.ts';
import { claimDueFeeds, type RefreshDeps, refreshFeed } from '../domain/calendar/refresh.ts';
import { DEFAULT_LIMITS, type FetchLimits } from '../domain/calendar/schedule.ts';
import type { Clock } from '../lib/clock.ts';
import type { OutboundPolicy } from '../lib/outbound-url.ts';
import { workerJob } from '../lib/telemetry/jobs.ts';
import { type WorkerLogger, workerLoop } from './worker-loop.ts';

export type CalendarWorkerLogger = Pick<WorkerLogger, 'info' | 'error'>;

export interface CalendarWorkerOptions {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  logger?: CalendarWorkerLogger;
  /** Feeds fetched at once by this worker. */
  concurrency?: number;
  /** Sleep between claims when nothing was due. */
  pollMs?: number;
  limits?: Partial<FetchLimits>;
  lookup?: typeof dns.lookup;
  random?: () => number;
  /** Only these institutions' feeds (tests; dedicated workers). */
  institutionIds?: string[];
}

export interface CalendarRunSummary {
  claimed: number;
  ok: number;
  not_modified: number;
  failed: number;
}

export function createCalendarFetchWorker(options: CalendarWorkerOptions) {
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 30_000;
  const log = options.logger;
  const deps: RefreshDeps = {
    db: options.db,
    clock: options.clock,
    policy: options.policy,
    lookup: options.lookup,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    random: options.random,
  };

  /** Claims what is due now (up to `concurrency`), fetches it all, returns the outcomes. */
  async function runOnce(): Promise<CalendarRunSummary> {
    const claimed = await claimDueFeeds(deps, concurrency, options.institutionIds);
    const summary: CalendarRunSummary = { claimed: claimed.length, ok: 0, not_modified: 0, failed: 0 };
    await Promise.all(
      claimed.map(async (feed) => {
        try {
          const record = await workerJob('calendar', () => refreshFeed(deps, feed, 'schedule'), {
            attributes: { 'ssp.feed_id': feed.id },
            outcome: (done) => done?.status ?? 'skipped',
          });
          if (record) {
            summary[record.status]++;
            if (record.status === 'failed')
              log?.info({ feed_id: feed.id, error: record.error }, 'calendar feed fetch failed');
          }
        } catch (error) {
          // Recording failed (database unavailable): the lease expires and the feed falls due again.
          summary.failed++;
          log?.error({ err: error, feed_id: feed.id }, 'recording a calendar fetch failed');
        }
      }),
    );
    return summary;
  }

  // A full claim: more may be due, claim again at once.
  const loop = workerLoop('calendar fetch worker', log, runOnce, {
    full: (claimed) => claimed >= concurrency,
    pollMs,
    failed: 'claiming calendar feeds failed',
  });

  // stop waits for the fetches in flight; a hanging feed's lease expires and another worker fetches it.
  return { runOnce, start: loop.start, stop: loop.stop };
}

export type CalendarFetchWorker = ReturnType<typeof createCalendarFetchWorker>;
