// One fetch of one feed, start to end: claim it (a lease, so no two fetches of a feed run at
// once, across any number of workers), download (download.ts), parse and expand in a worker
// thread (parse-job.ts: its own memory and time limits, never on the event loop), stage the
// occurrences' writes (store.ts: in batches, each statement on its own), then record everything
// in ONE short transaction: the staged writes applied, the feed's validators, health, truncation
// and next due time, and the fetch record. Nothing networked runs inside the transaction. A
// fetch that fails at any step records a failed fetch and leaves the stored occurrences
// untouched (its staged writes are dropped).
//
// Queries per fetch: 1 claim; on success the stored keys read in pages + the writes staged in
// batches (store.ts), then in the transaction 1 feed update + 4 to apply the staged writes + 1
// insert of the record + 1 prune of old records.

import type dns from 'node:dns';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { OutboundPolicy } from '../../lib/outbound-url.ts';
import type { Deps } from '../deps.ts';
import type { DiffCounts } from './diff.ts';
import { downloadFeed } from './download.ts';
import type { ClaimedFeed, FetchRecord } from './model.ts';
import { type ParseJob, startParse } from './parse-job.ts';
import { type EventProblem, FeedProblem } from './problems.ts';
import { claimDueFeedRows, claimFeedRow, insertFetch, pruneFetches, recordFeedOutcome } from './queries.ts';
import { DEFAULT_LIMITS, expansionWindow, type FetchLimits, nextFetchDelayMs } from './schedule.ts';
import { countStoredEvents } from './sql/occurrences.ts';
import {
  applyStaged,
  batchSizes,
  dropStaged,
  type Staging,
  stageOccurrences,
  vacuumStaged,
} from './store.ts';

export type { ClaimedFeed } from './model.ts';

/** Fetch records kept per feed (older ones are deleted as new ones are written). */
export const HISTORY_PER_FEED = 200;

export interface RefreshDeps {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  limits: FetchLimits;
  lookup?: typeof dns.lookup;
  random?: () => number;
}

/**
 * A process's fetch dependencies: the documented limits and a random jitter unless its
 * `calendarFetch` says otherwise; DNS is the outbound policy's.
 */
export function refreshDepsOf(deps: Pick<Deps, 'db' | 'clock' | 'policy' | 'calendarFetch'>): RefreshDeps {
  const { db, clock, policy, calendarFetch } = deps;
  return {
    db,
    clock,
    policy,
    limits: { ...DEFAULT_LIMITS, ...calendarFetch?.limits },
    random: calendarFetch?.random,
  };
}

/**
 * How long a claim holds a feed: the download's time limit, the parse worker's two (parsing,
 * then working out the writes), and storing, with room to spare.
 */
export function leaseMs(limits: FetchLimits): number {
  return Math.max(5 * 60_000, (limits.timeoutMs + 2 * limits.parseTimeoutMs) * 2);
}

/**
 * Claims up to `limit` due feeds for the scheduled fetch. FOR UPDATE SKIP LOCKED lets any
 * number of workers claim at once without waiting on each other or taking the same feed; the
 * claim moves next_fetch_at to the lease expiry, so a feed claimed by a worker that then dies
 * falls due again by itself. An archived institution's feeds are skipped (docs/archiving.md): they
 * keep their due time and are fetched on the first round after it is restored.
 *
 * Fair between institutions: due feeds are taken round robin by institution (each
 * institution's longest-due first, then every institution's second, ...), so one institution
 * with many due feeds fills a round only when no other institution has one due. The ranking
 * reads the due feeds without locking them (a window function cannot share a query level with
 * FOR UPDATE); the rows picked are then locked with SKIP LOCKED and their due time checked again,
 * so a feed another worker claimed meanwhile is passed over.
 */
export async function claimDueFeeds(deps: RefreshDeps, limit: number, institutionIds?: string[]) {
  const now = deps.clock.now();
  return claimDueFeedRows(
    deps.db,
    now,
    limit,
    new Date(now.getTime() + leaseMs(deps.limits)),
    institutionIds ?? null,
  );
}

/**
 * Claims one feed for an on-demand fetch; null when a fetch of it is already in flight (a
 * lease that has not expired).
 */
export async function claimFeed(deps: RefreshDeps, institutionId: string, id: string) {
  const now = deps.clock.now();
  return (
    (await claimFeedRow(deps.db, institutionId, id, now, new Date(now.getTime() + leaseMs(deps.limits)))) ??
    null
  );
}

interface Outcome {
  status: 'ok' | 'not_modified' | 'failed';
  http_status: number | null;
  error: string | null;
  /** The parsed feed, its worker waiting to work out the writes (status ok only). */
  job?: ParseJob;
  skipped: number;
  problems?: EventProblem[];
  truncated?: number;
  etag?: string | null;
  last_modified?: string | null;
}

/** Download, decode and expand; never throws. */
async function fetchAndParse(deps: RefreshDeps, feed: ClaimedFeed, startedAt: Date): Promise<Outcome> {
  const download = await downloadFeed(
    feed.url,
    { etag: feed.etag, lastModified: feed.last_modified },
    { policy: deps.policy, limits: deps.limits, lookup: deps.lookup },
  );
  if (download.kind === 'failed')
    return { status: 'failed', http_status: download.status, error: download.error, skipped: 0 };
  if (download.kind === 'not_modified')
    return { status: 'not_modified', http_status: 304, error: null, skipped: 0 };
  try {
    const job = await startParse(
      feed.institution_id,
      {
        body: download.body,
        contentType: download.contentType,
        options: {
          now: startedAt.getTime(),
          ...expansionWindow(startedAt, deps.limits),
          maxOccurrences: deps.limits.maxOccurrences,
          maxSteps: deps.limits.maxSteps,
          maxStepsPerSeries: deps.limits.maxStepsPerSeries,
        },
      },
      { timeoutMs: deps.limits.parseTimeoutMs, memoryMb: deps.limits.parseMemoryMb },
    );
    return {
      status: 'ok',
      http_status: download.status,
      error: null,
      job,
      skipped: job.summary.skipped,
      problems: job.summary.problems,
      truncated: job.summary.truncated,
      etag: download.etag,
      last_modified: download.lastModified,
    };
  } catch (error) {
    return { status: 'failed', http_status: download.status, error: problemText(error), skipped: 0 };
  }
}

function problemText(error: unknown): string {
  return error instanceof FeedProblem
    ? error.message
    : `the calendar could not be read: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
}

/**
 * Fetches a claimed feed and records the result. Returns the fetch record, or null when the
 * claim was lost meanwhile (the feed was deleted, its URL changed, or its lease expired and
 * another fetch took over): then nothing is written.
 */
export async function refreshFeed(
  deps: RefreshDeps,
  feed: ClaimedFeed,
  trigger: 'schedule' | 'manual',
): Promise<FetchRecord | null> {
  const startedAt = deps.clock.now();
  const began = performance.now();
  const outcome = await fetchAndParse(deps, feed, startedAt);
  try {
    return await record(deps, feed, trigger, startedAt, began, outcome);
  } catch (error) {
    if (outcome.status !== 'ok') throw error;
    // Storing failed (the transaction rolled back, the stored events are unchanged): that is a
    // failed fetch too, recorded on its own.
    const reason =
      error instanceof FeedProblem
        ? error.message
        : `the events could not be stored: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
    return record(deps, feed, trigger, startedAt, began, {
      status: 'failed',
      http_status: outcome.http_status,
      error: reason,
      skipped: 0,
    });
  } finally {
    await outcome.job?.close();
  }
}

async function record(
  deps: RefreshDeps,
  feed: ClaimedFeed,
  trigger: 'schedule' | 'manual',
  startedAt: Date,
  began: number,
  outcome: Outcome,
): Promise<FetchRecord | null> {
  const staging: Staging = { feedId: feed.id, leaseToken: feed.lease_token };
  const now = deps.clock.now();
  let recorded: FetchRecord | null;
  try {
    const counts = outcome.job
      ? await stageOccurrences(deps.db, staging, outcome.job, batchSizes(deps.db.kind))
      : undefined;
    recorded = await recordOutcome(deps, feed, { trigger, startedAt, began, now }, outcome, counts);
    // The claim was lost meanwhile: nothing was applied, and the staged writes are not wanted.
    if (!recorded && counts) await dropStaged(deps.db, staging);
  } catch (error) {
    if (outcome.job) await dropStaged(deps.db, staging).catch(() => {});
    throw error;
  }
  // Upkeep, not the fetch's outcome: a vacuum that fails is done again after the next fetch.
  if (outcome.job) await vacuumStaged(deps.db).catch(() => {});
  return recorded;
}

/** The fetch's one transaction: the claim checked, the staged writes applied, the record. */
async function recordOutcome(
  deps: RefreshDeps,
  feed: ClaimedFeed,
  times: { trigger: 'schedule' | 'manual'; startedAt: Date; began: number; now: Date },
  outcome: Outcome,
  counts: DiffCounts | undefined,
): Promise<FetchRecord | null> {
  const { trigger, startedAt, began, now } = times;
  const failed = outcome.status === 'failed';
  const failures = failed ? feed.failure_count + 1 : 0;
  const nextAt = new Date(
    now.getTime() + nextFetchDelayMs(feed.refresh_minutes, failures, deps.random ?? Math.random),
  );
  return deps.db.transaction(async (tx) => {
    // Locks the feed row and checks the claim still holds before anything is written.
    const owned = await recordFeedOutcome(
      tx,
      feed,
      JSON.stringify({
        next_at: nextAt,
        started_at: startedAt,
        status: outcome.status,
        failures,
        error: outcome.error,
        etag: outcome.etag ?? null,
        last_modified: outcome.last_modified ?? null,
        truncated: outcome.truncated ?? 0,
      }),
    );
    if (!owned) return null;
    if (counts)
      await applyStaged(tx, { feedId: feed.id, leaseToken: feed.lease_token }, feed.institution_id, now);
    const total = counts?.total ?? (await countStoredEvents(tx, feed));
    const fetch = await insertFetch(
      tx,
      feed,
      JSON.stringify({
        trigger,
        started_at: startedAt,
        // Download, parse and storing: the whole fetch.
        duration_ms: Math.round(performance.now() - began),
        status: outcome.status,
        http_status: outcome.http_status,
        added: counts?.added ?? 0,
        updated: counts?.updated ?? 0,
        removed: counts?.removed ?? 0,
        total,
        skipped: outcome.skipped,
        truncated: outcome.truncated ?? 0,
        error: outcome.error,
        problems: outcome.problems ?? [],
      }),
    );
    await pruneFetches(tx, feed.id, HISTORY_PER_FEED);
    return fetch;
  });
}
