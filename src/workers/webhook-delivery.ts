// Webhook delivery worker: claims due deliveries with FOR UPDATE SKIP LOCKED under a lease,
// posts them signed (Standard Webhooks) with undici over a keep-alive Agent whose DNS lookup
// refuses non-public addresses, and records every attempt and its consequence in one
// transaction per batch of results.
//
// - Lease: a claim moves a delivery's next_attempt_at to the lease expiry and stamps a lease
//   token. A worker that dies mid-delivery simply lets the row fall due again when the lease
//   expires; a result whose token no longer matches (lease expired and taken over) changes
//   nothing but its attempt line. Delivery is at least once.
// - Several workers (threads of one process or many processes) share the queue safely: a row is
//   claimed by exactly one of them at a time.
// - Fairness: at most `perEndpointConcurrency` deliveries of one endpoint are in flight per
//   worker, out of `concurrency`, and a failing delivery is rescheduled on its own, so a slow or
//   failing endpoint never holds up the others. No ordering between the deliveries of one endpoint
//   is promised: payloads carry `version` and `updated_at` for consumers to drop stale events.
// - Polling: when a claim found work the worker claims again at once; when idle it sleeps
//   `idlePollMs` (50 ms by default), which bounds the added latency of a new event.
import { randomUUID } from 'node:crypto';
import type dns from 'node:dns';
import { Agent, request } from 'undici';
import { type Db, PgErrorCode, pgErrorCode } from '../db/db.ts';
import {
  type AttemptResult,
  type Decision,
  DISABLE_AFTER_FAILING_MS,
  decide,
  FAILING_RUN_GAP_MS,
  type Outcome,
  parseRetryAfter,
} from '../domain/webhooks/schedule.ts';
import { failPendingEach } from '../domain/webhooks/service.ts';
import { secretKey, signatureHeader } from '../domain/webhooks/signing.ts';
import type { Clock } from '../lib/clock.ts';
import { checkUrlSyntax, guardedLookup, type OutboundPolicy } from '../lib/outbound-url.ts';

const VACUUM_EVERY = 2_000;

export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface WebhookWorkerOptions {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  logger?: WorkerLogger;
  /** Deliveries in flight at once in this worker. */
  concurrency?: number;
  /** Deliveries of one endpoint in flight at once in this worker. */
  perEndpointConcurrency?: number;
  /** In flight at once for one endpoint before its further attempts use the overflow pool. */
  fairShare?: number;
  /** In flight at once for all slow or failing endpoints together. */
  slowShare?: number;
  /** In flight at once beyond the fair share of busy (healthy) endpoints together. */
  overflowShare?: number;
  /** An attempt in flight longer than this marks its endpoint slow (default: half the attempt timeout). */
  slowAfterMs?: number;
  /** Most deliveries claimed by one query. */
  batchSize?: number;
  /** Whole attempt: connect, send, response headers and body. */
  attemptTimeoutMs?: number;
  /** A claimed delivery becomes due again after this long (must exceed the attempt timeout). */
  leaseMs?: number;
  /** Sleep between polls when nothing was due. */
  idlePollMs?: number;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Only deliver these institutions' deliveries (dedicated workers; tests). */
  institutionIds?: string[];
  /** Name of this worker in logs. */
  workerId?: string;
  /** DNS lookup behind the connect-time address check (default: the system's, dns.lookup). */
  lookup?: typeof dns.lookup;
  /** Finished deliveries (and their attempts) are deleted this long after their event. */
  retentionMs?: number;
}

/** Default retention of the delivery log. */
export const RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;

interface Claimed {
  id: string;
  lease_token: string;
  endpoint_id: string;
  institution_id: string;
  event_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  body: string;
}

interface Result {
  delivery_id: string;
  lease_token: string;
  endpoint_id: string;
  institution_id: string;
  event_id: string;
  attempted_at: string;
  outcome: Outcome;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  disable_reason: string | null;
}

export interface RunSummary {
  claimed: number;
  outcomes: Partial<Record<Outcome, number>>;
}

export function createWebhookWorker(options: WebhookWorkerOptions) {
  const { db, clock, policy } = options;
  const concurrency = options.concurrency ?? 256;
  const perEndpoint = options.perEndpointConcurrency ?? 128;
  // A claimer waiting for capacity wakes once this many deliveries have finished, so claims
  // stay batched instead of one query per freed slot.
  const wakeAfter = Math.max(1, Math.min(64, Math.floor(perEndpoint / 2)));
  const fairShare = options.fairShare ?? Math.max(1, Math.floor(concurrency / 16));
  const slowShare = options.slowShare ?? Math.max(1, Math.floor(concurrency / 4));
  const overflowShare = options.overflowShare ?? Math.max(1, Math.floor(concurrency / 2));
  const batchSize = options.batchSize ?? 500;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? Math.max(60_000, attemptTimeoutMs * 3);
  const idlePollMs = options.idlePollMs ?? 50;
  // Wall time, so it must be generous: a busy event loop stretches every attempt's apparent duration.
  const slowAfterMs = options.slowAfterMs ?? Math.floor(attemptTimeoutMs / 2);
  const random = options.random ?? Math.random;
  const workerId = options.workerId ?? randomUUID().slice(0, 8);
  const log = options.logger;

  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connect: { lookup: guardedLookup(policy, options.lookup) as never, timeout: attemptTimeoutMs },
  });

  // In-flight attempts per endpoint: delivery id -> start (performance.now()).
  const inflightByEndpoint = new Map<string, Map<string, number>>();
  let inflight = 0;

  /**
   * Capacity classes. An endpoint is "slow" when it is failing (`failing_since` set) or one of
   * its attempts in this worker has been in flight longer than `slowAfterMs`. Slow endpoints
   * together get at most `slowShare` slots. A healthy endpoint's first `fairShare` attempts are
   * free; beyond that they come from an overflow pool of `overflowShare` slots. The rest of the
   * capacity is kept for endpoints that are neither slow nor busy, so a hanging endpoint,
   * even one not yet known as failing, can never take the whole worker.
   */
  function capacity() {
    const started = performance.now();
    const full: string[] = [];
    const slow: string[] = [];
    const busy: string[] = [];
    const counts: Record<string, number> = {};
    let slowInflight = 0;
    let overflowInflight = 0;
    for (const [endpoint, attempts] of inflightByEndpoint) {
      const count = attempts.size;
      counts[endpoint] = count;
      if (count >= perEndpoint) full.push(endpoint);
      let oldest = Number.POSITIVE_INFINITY;
      for (const t of attempts.values()) if (t < oldest) oldest = t;
      if (started - oldest > slowAfterMs || slowFor.has(endpoint)) {
        slow.push(endpoint);
        slowInflight += count;
      } else {
        if (count >= fairShare) busy.push(endpoint);
        overflowInflight += Math.max(0, count - fairShare);
      }
    }
    return {
      full,
      slow,
      busy,
      counts,
      slowRoom: Math.max(0, slowShare - slowInflight),
      overflowRoom: Math.max(0, overflowShare - overflowInflight),
    };
  }

  /**
   * Endpoints whose attempt timed out in this worker, until the given time (performance.now()),
   * so a hanging endpoint stays in the slow class between its attempts.
   */
  const slowFor = new Map<string, number>();
  function noteSlow(endpoint: string, outcome: Outcome) {
    const now = performance.now();
    for (const [e, until] of slowFor) if (until <= now) slowFor.delete(e);
    if (outcome === 'timeout') slowFor.set(endpoint, now + leaseMs);
    else if (outcome === 'success') slowFor.delete(endpoint);
  }

  /** Claims up to `limit` due deliveries, respecting the capacity classes above. */
  async function claim(limit: number): Promise<Claimed[]> {
    if (limit <= 0) return [];
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const cap = capacity();
    // Excluded outright: endpoints at their own limit, and whole classes with no room left.
    const excluded = [...cap.full, ...(cap.overflowRoom === 0 ? cap.busy : [])];
    const { rows } = await db.query<Claimed>(
      `WITH healthy AS (
         SELECT d.id, d.endpoint_id, false AS slow FROM webhook_deliveries d
         JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled AND w.failing_since IS NULL
         WHERE d.state = 'pending' AND d.next_attempt_at <= $1
           AND NOT (d.endpoint_id = ANY ($4::uuid[])) AND NOT (d.endpoint_id = ANY ($9::uuid[]))
           AND ($7::uuid[] IS NULL OR d.institution_id = ANY ($7::uuid[]))
         ORDER BY d.next_attempt_at
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED
       ), slow AS (
         SELECT s.id, s.endpoint_id, true AS slow FROM webhook_endpoints w
         CROSS JOIN LATERAL (
           SELECT d.id, d.endpoint_id FROM webhook_deliveries d
           WHERE d.endpoint_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= $1
           ORDER BY d.next_attempt_at
           LIMIT LEAST($2, $10)
           FOR UPDATE OF d SKIP LOCKED
         ) s
         WHERE $10 > 0 AND w.enabled AND (w.failing_since IS NOT NULL OR w.id = ANY ($9::uuid[]))
           AND NOT (w.id = ANY ($4::uuid[]))
           AND ($7::uuid[] IS NULL OR w.institution_id = ANY ($7::uuid[]))
       ), ranked AS (
         SELECT id, slow, COALESCE((($6::jsonb) ->> endpoint_id::text)::int, 0)
           + row_number() OVER (PARTITION BY endpoint_id ORDER BY id) AS n
         FROM (SELECT * FROM healthy UNION ALL SELECT * FROM slow) c
       ), classed AS (
         SELECT id, CASE WHEN slow THEN 2 WHEN n > $11 THEN 1 ELSE 0 END AS cls, n FROM ranked WHERE n <= $8
       ), picked AS (
         SELECT id, cls, row_number() OVER (PARTITION BY cls ORDER BY n, id) AS crn FROM classed
       ), chosen AS (
         SELECT id FROM picked
         WHERE cls = 0 OR (cls = 1 AND crn <= $12) OR (cls = 2 AND crn <= $10)
         ORDER BY cls, crn LIMIT $2
       )
       UPDATE webhook_deliveries d
       SET lease_token = $3, lease_until = $5, next_attempt_at = $5, attempts = d.attempts + 1
       FROM chosen r, webhook_endpoints w, events ev
       WHERE d.id = r.id AND w.id = d.endpoint_id AND ev.id = d.event_id
       RETURNING d.id, d.lease_token, d.endpoint_id, d.institution_id, d.event_id, d.attempts, w.url, w.secret,
         w.previous_secret, w.previous_secret_expires_at, ev.payload::text AS body`,
      [
        now,
        limit,
        randomUUID(),
        excluded,
        leaseUntil,
        JSON.stringify(cap.counts),
        options.institutionIds ?? null,
        perEndpoint,
        cap.slow,
        cap.slowRoom,
        fairShare,
        cap.overflowRoom,
      ],
    );
    return rows;
  }

  async function send(delivery: Claimed): Promise<Result> {
    const attemptedAt = clock.now();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const keys = [secretKey(delivery.secret)];
    if (
      delivery.previous_secret &&
      delivery.previous_secret_expires_at &&
      delivery.previous_secret_expires_at.getTime() > attemptedAt.getTime()
    )
      keys.push(secretKey(delivery.previous_secret));

    let result: AttemptResult;
    let error: string | null = null;
    const started = performance.now();
    const syntax = checkUrlSyntax(delivery.url, policy);
    if (!syntax.ok) {
      result = { outcome: 'blocked_address' };
      error = `refused: ${syntax.reason}`;
    } else {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), attemptTimeoutMs);
      try {
        const response = await request(syntax.url, {
          method: 'POST',
          dispatcher: agent,
          signal: controller.signal,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'ssp-webhooks/1',
            'webhook-id': delivery.event_id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatureHeader(keys, delivery.event_id, timestamp, delivery.body),
          },
          body: delivery.body,
        });
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        const status = response.statusCode;
        if (status >= 200 && status < 300) result = { outcome: 'success', statusCode: status };
        else if (status >= 300 && status < 400) {
          result = { outcome: 'redirect', statusCode: status };
          error = 'redirects are not followed';
        } else {
          result = {
            outcome: 'http_error',
            statusCode: status,
            retryAfterMs: parseRetryAfter(response.headers['retry-after'], attemptedAt),
          };
          error = `HTTP ${status}`;
        }
      } catch (caught) {
        const code = (caught as { code?: string }).code;
        if (controller.signal.aborted) {
          result = { outcome: 'timeout' };
          error = `no complete response within ${attemptTimeoutMs} ms`;
        } else if (code === 'E_BLOCKED_ADDRESS') {
          result = { outcome: 'blocked_address' };
          error = (caught as Error).message;
        } else {
          result = { outcome: 'connection_error' };
          error = `${code ? `${code}: ` : ''}${(caught as Error).message}`.slice(0, 500);
        }
      } finally {
        clearTimeout(timer);
      }
    }
    const duration = Math.round(performance.now() - started);
    noteSlow(delivery.endpoint_id, result.outcome);
    const decision: Decision = decide(result, delivery.attempts, random);
    return {
      delivery_id: delivery.id,
      lease_token: delivery.lease_token,
      endpoint_id: delivery.endpoint_id,
      institution_id: delivery.institution_id,
      event_id: delivery.event_id,
      attempted_at: attemptedAt.toISOString(),
      outcome: result.outcome,
      status_code: result.statusCode ?? null,
      duration_ms: duration,
      error,
      state: decision.kind === 'succeeded' ? 'succeeded' : decision.kind === 'retry' ? 'pending' : 'failed',
      next_attempt_at:
        decision.kind === 'retry' ? new Date(attemptedAt.getTime() + decision.delayMs).toISOString() : null,
      disable_reason: decision.kind === 'disable_endpoint' ? decision.reason : null,
    };
  }

  /** Records a batch of results in one transaction: attempts, deliveries, endpoint health. */
  async function record(results: Result[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await recordOnce(results);
      } catch (error) {
        const code = pgErrorCode(error);
        const transient = code === PgErrorCode.deadlockDetected || code === PgErrorCode.serializationFailure;
        if (!transient || attempt >= 3) throw error;
      }
    }
  }

  async function recordOnce(results: Result[]): Promise<void> {
    if (results.length === 0) return;
    const now = clock.now();
    const json = JSON.stringify(results);
    // The id list lets the planner look deliveries up by primary key instead of scanning.
    const ids = results.map((r) => r.delivery_id);
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webhook_attempts (institution_id, delivery_id, endpoint_id, event_id, attempted_at, outcome,
           status_code, duration_ms, error)
         SELECT r.institution_id, r.delivery_id, r.endpoint_id, r.event_id, r.attempted_at, r.outcome, r.status_code,
           r.duration_ms, r.error
         FROM jsonb_to_recordset($1::jsonb) AS r(institution_id uuid, delivery_id uuid, endpoint_id uuid, event_id uuid,
           attempted_at timestamptz, outcome text, status_code int, duration_ms int, error text)
         WHERE r.delivery_id IN (SELECT id FROM webhook_deliveries WHERE id = ANY ($2::uuid[]))`,
        [json, ids],
      );
      // Only results whose lease still held count: a late result (lease expired and taken over)
      // changes neither the delivery nor the endpoint's health, and cannot disable it.
      const updated = await tx.query<{ id: string }>(
        `UPDATE webhook_deliveries d SET state = r.state,
           next_attempt_at = COALESCE(r.next_attempt_at, d.next_attempt_at),
           last_status = r.status_code, last_error = r.error, last_attempt_at = r.attempted_at,
           completed_at = CASE WHEN r.state = 'pending' THEN NULL ELSE r.attempted_at END,
           lease_token = NULL, lease_until = NULL
         FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id uuid, lease_token uuid, state text,
           next_attempt_at timestamptz, status_code int, error text, attempted_at timestamptz)
         WHERE d.id = ANY ($2::uuid[]) AND d.id = r.delivery_id AND d.lease_token = r.lease_token
         RETURNING d.id`,
        [json, ids],
      );
      const matched = new Set(updated.rows.map((row) => row.id));
      const current = results.filter((r) => matched.has(r.delivery_id));
      const health = new Map<string, { success: boolean; firstFailure?: string; lastFailure?: string }>();
      for (const r of current) {
        const h = health.get(r.endpoint_id) ?? { success: false };
        if (r.outcome === 'success') h.success = true;
        else {
          if (!h.firstFailure || r.attempted_at < h.firstFailure) h.firstFailure = r.attempted_at;
          if (!h.lastFailure || r.attempted_at > h.lastFailure) h.lastFailure = r.attempted_at;
        }
        health.set(r.endpoint_id, h);
      }
      // Endpoint rows are locked in id order by every worker, so concurrent flushes cannot deadlock
      // on them; should the database still report one, the whole flush is retried.
      const healthy = [...health]
        .filter(([, h]) => h.success)
        .map(([id]) => id)
        .sort();
      const failing = [...health]
        .filter(([, h]) => !h.success)
        .map(([id, h]) => ({ id, first_failure: h.firstFailure, last_failure: h.lastFailure }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      const gone = current
        .filter((r) => r.disable_reason)
        .map((r) => ({ id: r.endpoint_id, reason: r.disable_reason }));

      if (healthy.length > 0)
        await tx.query(
          `UPDATE webhook_endpoints SET failing_since = NULL, last_failure_at = NULL
           WHERE id = ANY ($1::uuid[]) AND (failing_since IS NOT NULL OR last_failure_at IS NOT NULL)`,
          [healthy],
        );
      const toDisable: { id: string; reason: string }[] = [];
      if (failing.length > 0) {
        const { rows } = await tx.query<{ id: string; failing_since: Date }>(
          // The run restarts when the previous failure is older than FAILING_RUN_GAP_MS: quiet
          // days without events are not failing days.
          `UPDATE webhook_endpoints w SET
             failing_since = CASE
               WHEN w.failing_since IS NULL
                 OR f.first_failure - w.last_failure_at > $2::bigint * interval '1 millisecond'
               THEN f.first_failure ELSE w.failing_since END,
             last_failure_at = GREATEST(w.last_failure_at, f.last_failure)
           FROM jsonb_to_recordset($1::jsonb) AS f(id uuid, first_failure timestamptz, last_failure timestamptz)
           WHERE w.id = f.id AND w.enabled
           RETURNING w.id, w.failing_since`,
          [JSON.stringify(failing), FAILING_RUN_GAP_MS],
        );
        for (const row of rows) {
          if (now.getTime() - row.failing_since.getTime() >= DISABLE_AFTER_FAILING_MS)
            toDisable.push({
              id: row.id,
              reason: `every delivery attempt has failed since ${row.failing_since.toISOString()} (${DISABLE_AFTER_FAILING_MS / 86_400_000} days)`,
            });
        }
      }
      for (const g of gone)
        if (!toDisable.some((d) => d.id === g.id)) toDisable.push(g as { id: string; reason: string });
      if (toDisable.length > 0) {
        toDisable.sort((a, b) => (a.id < b.id ? -1 : 1));
        const { rows } = await tx.query<{ id: string; disabled_reason: string }>(
          `UPDATE webhook_endpoints w SET enabled = false, disabled_reason = x.reason, disabled_at = $2, updated_at = $2
           FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, reason text)
           WHERE w.id = x.id AND w.enabled RETURNING w.id, w.disabled_reason`,
          [JSON.stringify(toDisable), now],
        );
        await failPendingEach(
          tx,
          rows.map((row) => ({ id: row.id, reason: `endpoint disabled: ${row.disabled_reason}` })),
          now,
        );
        for (const row of rows)
          log?.info({ endpoint_id: row.id, reason: row.disabled_reason }, 'webhook endpoint disabled');
      }
    });
  }

  // Embedded PGlite has no autovacuum: without it, dead versions of the queue's rows pile up
  // in the due index and every claim wades through them. The worker vacuums the queue table
  // itself there after every few thousand recorded results. (PostgreSQL: autovacuum, tuned
  // for this table in the migration.)
  let recordedSinceVacuum = 0;
  async function maintain(recorded: number): Promise<void> {
    if (db.kind !== 'pglite') return;
    recordedSinceVacuum += recorded;
    if (recordedSinceVacuum < VACUUM_EVERY) return;
    recordedSinceVacuum = 0;
    await db.exec('VACUUM (ANALYZE) webhook_deliveries');
  }

  /**
   * Deletes finished deliveries (with their attempts) older than the retention, a bounded
   * batch at a time; returns how many were deleted.
   */
  async function prune(): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - (options.retentionMs ?? RETENTION_MS));
    const { rowCount } = await db.query(
      // The age is the event's (occurred_at), as documented. Deliveries are created with their
      // event, so walking finished deliveries in creation order meets the old events first.
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT d.id FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
         WHERE ev.occurred_at < $1 AND d.state <> 'pending'
           AND ($3::uuid[] IS NULL OR d.institution_id = ANY ($3::uuid[]))
         ORDER BY d.created_at LIMIT $2)`,
      [cutoff, PRUNE_BATCH, options.institutionIds ?? null],
    );
    return rowCount;
  }
  let lastPrune = 0;
  async function pruneNow(): Promise<void> {
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

  function track(delivery: Claimed, delta: 1 | -1) {
    const endpoint = delivery.endpoint_id;
    let attempts = inflightByEndpoint.get(endpoint);
    if (delta > 0) {
      if (!attempts) {
        attempts = new Map();
        inflightByEndpoint.set(endpoint, attempts);
      }
      attempts.set(delivery.id, performance.now());
    } else if (attempts) {
      attempts.delete(delivery.id);
      if (attempts.size === 0) inflightByEndpoint.delete(endpoint);
    }
    inflight += delta;
  }

  /** One round, for tests and tools: claim what is due, deliver all, record, return a summary. */
  async function runOnce(): Promise<RunSummary> {
    return deliver(await claim(Math.min(batchSize, concurrency)));
  }

  /** Attempts these claimed deliveries and records the results (runOnce's second half). */
  async function deliver(claimed: Claimed[]): Promise<RunSummary> {
    for (const c of claimed) track(c, 1);
    try {
      const results = await Promise.all(claimed.map(send));
      await record(results);
      await maintain(results.length);
      const outcomes: RunSummary['outcomes'] = {};
      for (const r of results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
      return { claimed: claimed.length, outcomes };
    } finally {
      for (const c of claimed) track(c, -1);
    }
  }

  /** Rounds until nothing is due at the clock's current time. */
  async function drain(): Promise<RunSummary> {
    const total: RunSummary = { claimed: 0, outcomes: {} };
    for (;;) {
      const round = await runOnce();
      if (round.claimed === 0) return total;
      total.claimed += round.claimed;
      for (const [k, v] of Object.entries(round.outcomes))
        total.outcomes[k as Outcome] = (total.outcomes[k as Outcome] ?? 0) + v;
    }
  }

  // --- continuous mode -------------------------------------------------------------------
  let running = false;
  let loopDone: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let finishedSinceClaim = 0;
  const pendingResults: Result[] = [];
  let flushing: Promise<void> | undefined;
  const inflightPromises = new Set<Promise<void>>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  // Results are recorded in batches: a flush starts on a later turn of the event loop (after
  // every response already received has been handled) and one flush runs at a time.
  let flushScheduled = false;
  function flushSoon(): void {
    if (flushScheduled || flushing) return;
    flushScheduled = true;
    setImmediate(flushNow);
  }
  function flushNow(): void {
    flushScheduled = false;
    if (flushing || pendingResults.length === 0) return;
    const batch = pendingResults.splice(0, pendingResults.length);
    flushing = record(batch)
      .then(() => maintain(batch.length))
      .catch((error) => {
        log?.error(
          { err: error, count: batch.length },
          'recording webhook results failed; leases will expire',
        );
      })
      .finally(() => {
        flushing = undefined;
        if (pendingResults.length > 0) flushSoon();
      });
  }

  async function loop(): Promise<void> {
    while (running) {
      let claimed: Claimed[] = [];
      let requested = 0;
      if (concurrency - inflight < wakeAfter) {
        await sleep(idlePollMs * 20); // woken as deliveries finish
        continue;
      }
      try {
        finishedSinceClaim = 0;
        requested = Math.min(batchSize, concurrency - inflight);
        claimed = await claim(requested);
      } catch (error) {
        log?.error({ err: error }, 'claiming webhook deliveries failed');
        await sleep(1_000);
        continue;
      }
      for (const delivery of claimed) {
        track(delivery, 1);
        const p: Promise<void> = send(delivery)
          .then((result) => {
            pendingResults.push(result);
            flushSoon();
          })
          .catch((error) => {
            // Not expected (send reports every failure as a result); the lease will expire.
            log?.error({ err: error, delivery_id: delivery.id }, 'webhook delivery attempt crashed');
          })
          .finally(() => {
            track(delivery, -1);
            inflightPromises.delete(p);
            finishedSinceClaim++;
            if (finishedSinceClaim >= wakeAfter || inflight === 0) wakeUp?.();
          });
        inflightPromises.add(p);
      }
      if (!running) break;
      // Fewer than asked for (nothing more due, or endpoints at their in-flight limit): sleep until
      // the poll interval or until enough deliveries finish to make the next claim a batch.
      // A full claim: claim again at once.
      if (claimed.length < requested) {
        await pruneNow();
        await sleep(idlePollMs);
      } else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  return {
    workerId,
    claim,
    deliver,
    prune,
    runOnce,
    drain,
    /** Starts the continuous loop. */
    start(): void {
      if (running) return;
      running = true;
      log?.info({ worker: workerId }, 'webhook delivery worker started');
      loopDone = loop();
    },
    /** Stops claiming, lets in-flight attempts finish, records them, closes connections. */
    async stop(): Promise<void> {
      running = false;
      wakeUp?.();
      await loopDone;
      await Promise.allSettled([...inflightPromises]);
      while (flushing || pendingResults.length > 0) {
        if (!flushing) flushNow();
        await flushing;
      }
      await agent.close();
    },
    /** Closes the HTTP agent (runOnce users). */
    close: () => agent.close(),
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
