// Every change of a webhook delivery's state and of an endpoint's delivery health, in one place:
// - recording attempt results (the worker): the attempt log, the delivery's state and next due
//   time, the endpoint's failing run, and disabling on `410 Gone` or after 5 failing days;
// - disabling an endpoint (by those rules or by an administrator) fails its pending deliveries;
//   enabling one clears its failing run;
// - queueing a delivery again: redelivery, test events, replay of failed deliveries.
// Deliveries are created by the fan-out trigger on `events` (0005_webhooks.sql), apart from
// test events and redeliveries (enqueueDelivery). The lease columns (token, expiry, attempt
// count) are written by claim.ts and leases.ts only.
//
// Recording costs a fixed number of queries per batch of results, in one transaction: the
// attempt lines with the deliveries (one statement), then at most three endpoint updates (healthy, failing,
// disabled) and one to fail the disabled endpoints' pending deliveries. Only results whose
// lease still holds change anything beyond their attempt line. On failure the transaction
// rolls back (retried on a deadlock or serialization failure): the leases expire and the
// deliveries are attempted again, so a result is never half recorded.
import { type Db, PgErrorCode, pgErrorCode, type Queryable } from '../../../db/db.ts';
import { DISABLE_AFTER_FAILING_MS, decide, FAILING_RUN_GAP_MS, type Outcome } from '../schedule.ts';
import type { Attempt } from './attempt.ts';
import type { Claimed } from './claim.ts';
import { clearFailingRuns, extendFailingRuns } from './sql/endpoint-health.ts';
import {
  disableEnabledEndpoints,
  disableEndpointByAdministratorRow,
  disableEndpointWithReason,
  enableEndpoint,
  failPendingDeliveryRows,
} from './sql/endpoint-switches.ts';
import { recordResultRows } from './sql/record-results.ts';
import { requeueFailedDeliveries, upsertDueDelivery } from './sql/requeue.ts';

/** One attempt's result, as recorded. */
export interface Result {
  delivery_id: string;
  /** Null when the attempt was abandoned (lease lost): it then counts for nothing but its attempt line. */
  lease_token: string | null;
  endpoint_id: string;
  institution_id: string;
  event_id: string;
  attempted_at: string;
  outcome: Outcome;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** What was sent and what came back (./attempt.ts): shown by the delivery log. */
  request_headers: Record<string, string> | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  disable_reason: string | null;
}

export interface StateLogger {
  info(obj: object, msg?: string): void;
}

/** What an attempt means for its delivery (schedule.ts decides), ready to record. */
export function resultOf(
  delivery: Claimed,
  attempt: Attempt,
  options: { random: () => number; leaseHeld: boolean },
): Result {
  const decision = decide(attempt, delivery.attempts, options.random);
  return {
    delivery_id: delivery.id,
    lease_token: options.leaseHeld ? delivery.lease_token : null,
    endpoint_id: delivery.endpoint_id,
    institution_id: delivery.institution_id,
    event_id: delivery.event_id,
    attempted_at: attempt.attemptedAt.toISOString(),
    outcome: attempt.outcome,
    status_code: attempt.statusCode ?? null,
    duration_ms: attempt.durationMs,
    error: attempt.error,
    request_headers: attempt.requestHeaders,
    response_headers: attempt.responseHeaders,
    response_body: attempt.responseBody,
    state: decision.kind === 'succeeded' ? 'succeeded' : decision.kind === 'retry' ? 'pending' : 'failed',
    next_attempt_at:
      decision.kind === 'retry'
        ? new Date(attempt.attemptedAt.getTime() + decision.delayMs).toISOString()
        : null,
    disable_reason: decision.kind === 'disable_endpoint' ? decision.reason : null,
  };
}

/** Records a batch of results in one transaction: attempts, deliveries, endpoint health. */
export async function recordResults(db: Db, results: Result[], now: Date, log?: StateLogger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordOnce(db, results, now, log);
    } catch (error) {
      const code = pgErrorCode(error);
      const transient = code === PgErrorCode.deadlockDetected || code === PgErrorCode.serializationFailure;
      if (!transient || attempt >= 3) throw error;
    }
  }
}

async function recordOnce(db: Db, results: Result[], now: Date, log?: StateLogger): Promise<void> {
  if (results.length === 0) return;
  const json = JSON.stringify(results);
  // The id list lets the planner look deliveries up by primary key instead of scanning.
  const ids = results.map((r) => r.delivery_id);
  await db.transaction(async (tx) => {
    // One statement (the batch is sent and parsed once): the attempt lines, then, only for
    // results whose lease still held, the deliveries. A late result (lease expired and taken
    // over) or an abandoned one changes neither the delivery nor the endpoint's health, and
    // cannot disable it.
    const updated = await recordResultRows(tx, json, ids);
    const matched = new Set(updated.map((row) => row.id));
    const current = results.filter((r) => matched.has(r.delivery_id));
    const toDisable = await recordEndpointHealth(tx, current, now);
    for (const r of current)
      if (r.disable_reason && !toDisable.some((d) => d.id === r.endpoint_id))
        toDisable.push({ id: r.endpoint_id, reason: r.disable_reason });
    const disabled = await disableEndpoints(tx, toDisable, now);
    for (const row of disabled)
      log?.info({ endpoint_id: row.id, reason: row.reason }, 'webhook endpoint disabled');
  });
}

/**
 * A success ends an endpoint's failing run; a failure starts or extends it. Returns the
 * endpoints whose run has now lasted DISABLE_AFTER_FAILING_MS, with the reason to disable them.
 * Endpoint rows are locked in id order by every worker, so concurrent recordings cannot
 * deadlock on them; should the database still report one, the whole recording is retried.
 */
async function recordEndpointHealth(
  tx: Queryable,
  current: Result[],
  now: Date,
): Promise<{ id: string; reason: string }[]> {
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
  const healthy = [...health]
    .filter(([, h]) => h.success)
    .map(([id]) => id)
    .sort();
  const failing = [...health]
    .filter(([, h]) => !h.success)
    .map(([id, h]) => ({ id, first_failure: h.firstFailure, last_failure: h.lastFailure }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));

  if (healthy.length > 0) await clearFailingRuns(tx, healthy);
  if (failing.length === 0) return [];
  const rows = await extendFailingRuns(tx, JSON.stringify(failing), FAILING_RUN_GAP_MS);
  return rows
    .filter((row) => now.getTime() - row.failing_since.getTime() >= DISABLE_AFTER_FAILING_MS)
    .map((row) => ({
      id: row.id,
      reason: `every delivery attempt has failed since ${row.failing_since.toISOString()} (${DISABLE_AFTER_FAILING_MS / 86_400_000} days)`,
    }));
}

/**
 * Disables these endpoints (those still enabled), each with its reason, and fails their pending
 * deliveries; returns the ones disabled now.
 */
async function disableEndpoints(
  tx: Queryable,
  endpoints: { id: string; reason: string }[],
  now: Date,
): Promise<{ id: string; reason: string }[]> {
  if (endpoints.length === 0) return [];
  const sorted = [...endpoints].sort((a, b) => (a.id < b.id ? -1 : 1));
  const rows = await disableEnabledEndpoints(tx, JSON.stringify(sorted), now);
  await failPendingDeliveries(
    tx,
    rows.map((row) => ({ id: row.id, reason: `endpoint disabled: ${row.reason}` })),
    now,
  );
  return rows;
}

/** An administrator disables an endpoint (again, if already disabled: the reason is replaced). */
export async function disableEndpointByAdministrator(
  tx: Queryable,
  endpoint: { institutionId: string; id: string },
  reason: string,
  now: Date,
): Promise<void> {
  await disableEndpointWithReason(tx, endpoint, reason, now);
  await failPendingDeliveries(
    tx,
    [{ id: endpoint.id, reason: 'endpoint disabled by an administrator' }],
    now,
  );
}

/**
 * An administrator switches an endpoint on or off through its settings. Enabling clears the
 * reason and the failing run; disabling an enabled endpoint records that an administrator did.
 */
export async function setEndpointEnabled(
  tx: Queryable,
  endpoint: { institutionId: string; id: string },
  enabled: boolean,
  now: Date,
): Promise<void> {
  if (enabled) {
    await enableEndpoint(tx, endpoint, now);
    return;
  }
  await disableEndpointByAdministratorRow(tx, endpoint, now);
  await failPendingDeliveries(
    tx,
    [{ id: endpoint.id, reason: 'endpoint disabled by an administrator' }],
    now,
  );
}

/** Marks the pending deliveries of these endpoints failed, each with its reason (they can be replayed later). */
async function failPendingDeliveries(
  tx: Queryable,
  endpoints: { id: string; reason: string }[],
  now: Date,
): Promise<void> {
  if (endpoints.length === 0) return;
  await failPendingDeliveryRows(tx, JSON.stringify(endpoints), now);
}

/**
 * Delivers one event to one endpoint, now, whatever happened before: a new delivery, or the
 * existing one back in the queue with its attempt count reset (its attempt history is kept).
 * Used for redelivery and for test events (which the fan-out trigger leaves alone).
 */
export async function enqueueDelivery(
  q: Queryable,
  delivery: { institutionId: string; endpointId: string; eventId: string },
  now: Date,
): Promise<{ id: string }> {
  return upsertDueDelivery(q, delivery, now);
}

/** Puts an endpoint's failed deliveries whose event occurred at or after `since` back in the queue. */
export async function replayFailedDeliveries(
  q: Queryable,
  endpoint: { institutionId: string; id: string },
  since: Date,
  now: Date,
): Promise<number> {
  return requeueFailedDeliveries(q, endpoint, since, now);
}
