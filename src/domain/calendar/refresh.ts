// One fetch of one feed, start to end: claim it (a lease, so no two fetches of a feed run at
// once, across any number of workers), download (download.ts), parse and expand in a worker
// thread (parse-job.ts: its own memory and time limits, never on the event loop), then record
// everything in ONE transaction: the stored occurrences (store.ts, in batches), the feed's
// validators, health, truncation and next due time, and the fetch record. Nothing networked
// runs inside the transaction. A fetch that fails at any step records a failed fetch and leaves
// the stored occurrences untouched.
//
// Queries per fetch: 1 claim; on success 1 feed update + the stored keys read in pages + the
// writes in batches (store.ts) + 1 insert of the record + 1 prune of old records.

import type dns from 'node:dns';
import type { Db, Queryable } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { OutboundPolicy } from '../../lib/outbound-url.ts';
import { downloadFeed } from './download.ts';
import { type FetchRecord, fetchColumns } from './feeds.ts';
import { type ParseJob, startParse } from './parse-job.ts';
import { type EventProblem, FeedProblem } from './problems.ts';
import { expansionWindow, type FetchLimits, nextFetchDelayMs } from './schedule.ts';
import { batchSizes, storeOccurrences } from './store.ts';

/** Fetch records kept per feed (older ones are deleted as new ones are written). */
export const HISTORY_PER_FEED = 200;

export interface ClaimedFeed {
  id: string;
  institution_id: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  refresh_minutes: number;
  failure_count: number;
  lease_token: string;
}

export interface RefreshDeps {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  limits: FetchLimits;
  lookup?: typeof dns.lookup;
  random?: () => number;
}

const claimedColumns =
  'id, institution_id, url, etag, last_modified, refresh_minutes, failure_count, lease_token';

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
  const { rows } = await deps.db.query<ClaimedFeed>(
    `WITH ranked AS (
       SELECT c.id, c.next_fetch_at,
         row_number() OVER (PARTITION BY c.institution_id ORDER BY c.next_fetch_at, c.id) AS turn
       FROM calendar_feeds c
       WHERE c.next_fetch_at <= $1 AND ($4::uuid[] IS NULL OR c.institution_id = ANY ($4::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = c.institution_id AND i.archived_at IS NOT NULL)
     ), due AS (
       SELECT f.id FROM calendar_feeds f JOIN ranked r ON r.id = f.id
       WHERE f.next_fetch_at <= $1
       ORDER BY r.turn, r.next_fetch_at, r.id LIMIT $2
       FOR UPDATE OF f SKIP LOCKED
     )
     UPDATE calendar_feeds f SET lease_token = gen_random_uuid(), next_fetch_at = $3
     FROM due WHERE f.id = due.id
     RETURNING ${claimedColumns.replace(/(\w+)/g, 'f.$1')}`,
    [now, limit, new Date(now.getTime() + leaseMs(deps.limits)), institutionIds ?? null],
  );
  return rows;
}

/**
 * Claims one feed for an on-demand fetch; null when a fetch of it is already in flight (a
 * lease that has not expired).
 */
export async function claimFeed(deps: RefreshDeps, institutionId: string, id: string) {
  const now = deps.clock.now();
  const { rows } = await deps.db.query<ClaimedFeed>(
    `UPDATE calendar_feeds SET lease_token = gen_random_uuid(), next_fetch_at = $4
     WHERE institution_id = $1 AND id = $2 AND (lease_token IS NULL OR next_fetch_at <= $3)
     RETURNING ${claimedColumns}`,
    [institutionId, id, now, new Date(now.getTime() + leaseMs(deps.limits))],
  );
  return rows[0] ?? null;
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
  const now = deps.clock.now();
  const failed = outcome.status === 'failed';
  const failures = failed ? feed.failure_count + 1 : 0;
  const nextAt = new Date(
    now.getTime() + nextFetchDelayMs(feed.refresh_minutes, failures, deps.random ?? Math.random),
  );
  return deps.db.transaction(async (tx) => {
    // Locks the feed row and checks the claim still holds before anything is written.
    const { rows: owned } = await tx.query<{ id: string }>(
      `UPDATE calendar_feeds f SET
         lease_token = NULL, next_fetch_at = x.next_at, last_fetch_at = x.started_at, last_status = x.status,
         failure_count = x.failures, last_error = x.error,
         failing_since = CASE WHEN x.failures = 0 THEN NULL ELSE COALESCE(f.failing_since, x.started_at) END,
         last_success_at = CASE WHEN x.failures = 0 THEN x.started_at ELSE f.last_success_at END,
         etag = CASE WHEN x.status = 'ok' THEN x.etag ELSE f.etag END,
         last_modified = CASE WHEN x.status = 'ok' THEN x.last_modified ELSE f.last_modified END,
         events_truncated = CASE WHEN x.status = 'ok' THEN x.truncated ELSE f.events_truncated END
       FROM json_to_record($3::json) AS x(next_at timestamptz, started_at timestamptz, status text,
         failures integer, error text, etag text, last_modified text, truncated integer)
       WHERE f.id = $1 AND f.lease_token = $2
       RETURNING f.id`,
      [
        feed.id,
        feed.lease_token,
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
      ],
    );
    if (owned.length === 0) return null;
    const counts = outcome.job
      ? await storeOccurrences(tx, feed.institution_id, feed.id, outcome.job, now, batchSizes(deps.db.kind))
      : undefined;
    const total = counts?.total ?? (await countEvents(tx, feed));
    const { rows } = await tx.query<FetchRecord>(
      `INSERT INTO calendar_feed_fetches (institution_id, feed_id, trigger, started_at, duration_ms, status,
         http_status, events_added, events_updated, events_removed, events_total, events_skipped,
         events_truncated, error, problems)
       SELECT $1, $2, x.trigger, x.started_at, x.duration_ms, x.status, x.http_status, x.added, x.updated,
         x.removed, x.total, x.skipped, x.truncated, x.error, x.problems
       FROM json_to_record($3::json) AS x(trigger text, started_at timestamptz, duration_ms integer, status text,
         http_status integer, added integer, updated integer, removed integer, total integer, skipped integer,
         truncated integer, error text, problems jsonb)
       RETURNING ${fetchColumns}`,
      [
        feed.institution_id,
        feed.id,
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
      ],
    );
    await tx.query(
      `DELETE FROM calendar_feed_fetches WHERE feed_id = $1 AND id < (
         SELECT id FROM calendar_feed_fetches WHERE feed_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [feed.id, HISTORY_PER_FEED - 1],
    );
    return rows[0];
  });
}

async function countEvents(tx: Queryable, feed: ClaimedFeed): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    'SELECT count(*) AS n FROM calendar_events WHERE institution_id = $1 AND feed_id = $2',
    [feed.institution_id, feed.id],
  );
  return rows[0].n;
}
