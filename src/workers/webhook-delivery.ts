// Webhook delivery worker: the loop that claims due deliveries (claim.ts) within the capacity
// classes (capacity.ts), attempts each one (attempt.ts) while keeping its lease (leases.ts),
// and records the results in batches (state.ts).
//
// - Polling: when a claim found work the worker claims again at once; when idle it sleeps
//   `idlePollMs` (50 ms by default), which bounds the added latency of a new event. So an idle
//   worker costs one read of the due index per poll (a claim only once something is due), and a
//   busy one one claim query per batch (up to `batchSize` rows) plus one recording transaction
//   per batch of finished attempts. On the embedded database, which only this process writes to,
//   an idle worker polls after each committed transaction (at most every `idlePollMs`), else
//   every `quietPollMs` (1 s by default: deliveries whose retry falls due).
// - Fairness: at most `perEndpointConcurrency` deliveries of one endpoint are in flight per
//   worker, out of `concurrency`, and a failing delivery is rescheduled on its own, so a slow or
//   failing endpoint never holds up the others. No ordering between the deliveries of one
//   endpoint is promised: payloads carry `version` and `updated_at` for consumers to drop stale
//   events.
// - On failure: a failed claim is logged and retried after a second; a failed recording is
//   logged and its deliveries fall due again when their leases expire (at least once); an
//   attempt never throws (every failure is an outcome).

import { randomUUID } from 'node:crypto';
import type dns from 'node:dns';
import type { Db } from '../db/db.ts';
import { attemptDelivery, createDeliveryAgent, urlChecker } from '../domain/webhooks/delivery/attempt.ts';
import { capacity, sharesAhead, sharesFor, wakeAfter } from '../domain/webhooks/delivery/capacity.ts';
import { type Claimed, claimDeliveries, deliveriesDue } from '../domain/webhooks/delivery/claim.ts';
import { continuousMode } from '../domain/webhooks/delivery/continuous.ts';
import { createInflight } from '../domain/webhooks/delivery/inflight.ts';
import { createLeaseKeeper, returnLeases } from '../domain/webhooks/delivery/leases.ts';
import { createPruner, createVacuumer, RETENTION_MS } from '../domain/webhooks/delivery/maintenance.ts';
import type { WorkerLogger } from '../domain/webhooks/delivery/model.ts';
import { type Result, recordResults, resultOf } from '../domain/webhooks/delivery/state.ts';
import type { Outcome } from '../domain/webhooks/schedule.ts';
import type { Clock } from '../lib/clock.ts';
import { isSealed, type Keyring } from '../lib/encryption.ts';
import { memoized } from '../lib/memoized.ts';
import type { OutboundPolicy } from '../lib/outbound-url.ts';
import { workerJob } from '../lib/telemetry/jobs.ts';

export type { Claimed, WorkerLogger };
export { RETENTION_MS };

export interface WebhookWorkerOptions {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  /** Opens the signing keys, which are stored encrypted. */
  keyring: Keyring;
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
  /**
   * Deliveries the continuous mode may claim ahead of free slots, for busy endpoints, so that
   * the next attempts are at hand when attempts finish (default: twice `concurrency`, 512; 256
   * left the ready queue empty at times: a claim of 150-300 rows took 15-20 ms on a busy machine).
   */
  claimAhead?: number;
  /** An attempt in flight longer than this marks its endpoint slow (default: half the attempt timeout). */
  slowAfterMs?: number;
  /** Most deliveries claimed by one query. */
  batchSize?: number;
  /** Whole attempt: connect, send, response headers and body. */
  attemptTimeoutMs?: number;
  /** A claimed delivery whose lease is not renewed falls due again after this long (default 10 s). */
  leaseMs?: number;
  /** Leases of attempts still running are renewed this often (default 3 s; at most a third of the lease). */
  renewEveryMs?: number;
  /** Sleep between polls when nothing was due. */
  idlePollMs?: number;
  /**
   * On a database that tells its commits (the embedded one): the sleep between polls when
   * nothing was due and no transaction committed (default 1 s). Elsewhere `idlePollMs` applies.
   */
  quietPollMs?: number;
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

export const DEFAULT_LEASE_MS = 10_000;
export const DEFAULT_RENEW_EVERY_MS = 3_000;

export interface RunSummary {
  claimed: number;
  outcomes: Partial<Record<Outcome, number>>;
}

/** A stored signing key: sealed, or plaintext from before encryption at rest (re-sealed at start). */
function openSecret(keyring: Keyring, stored: string): string {
  return isSealed(stored) ? keyring.decrypt(stored) : stored;
}

/**
 * Opens stored keys, keeping the opened ones by their sealed value (up to 1000, then the set
 * starts again): opening one (AES-GCM) cost about as much as signing a delivery, for every
 * delivery of a batch.
 */
function secretOpener(keyring: Keyring): (stored: string) => string {
  return memoized((stored) => openSecret(keyring, stored));
}

/** The worker's settings: the options given, or their defaults. */
function settingsOf(options: WebhookWorkerOptions) {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const shares = sharesFor({
    concurrency: options.concurrency,
    perEndpoint: options.perEndpointConcurrency,
    fairShare: options.fairShare,
    slowShare: options.slowShare,
    overflowShare: options.overflowShare,
    slowAfterMs: options.slowAfterMs,
    attemptTimeoutMs,
  });
  const claimAhead = Math.max(0, options.claimAhead ?? shares.concurrency * 2);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  return {
    attemptTimeoutMs,
    shares,
    wakeAfterFinished: wakeAfter(shares),
    claimAhead,
    aheadShares: sharesAhead(shares, claimAhead),
    batchSize: options.batchSize ?? 500,
    leaseMs,
    renewEveryMs: options.renewEveryMs ?? Math.min(DEFAULT_RENEW_EVERY_MS, Math.floor(leaseMs / 3)),
    idlePollMs: options.idlePollMs ?? 50,
    quietPollMs: options.quietPollMs ?? 1_000,
    commits: options.db.commits,
    random: options.random ?? Math.random,
    workerId: options.workerId ?? randomUUID().slice(0, 8),
    institutionIds: options.institutionIds ?? null,
  };
}

type Settings = ReturnType<typeof settingsOf>;

/** What a worker holds while it runs: its HTTP agent, what is in flight, the leases it keeps. */
function holdingsOf(options: WebhookWorkerOptions, settings: Settings) {
  const { db, clock, policy } = options;
  const { attemptTimeoutMs, leaseMs, renewEveryMs } = settings;
  return {
    agent: createDeliveryAgent(policy, attemptTimeoutMs, options.lookup),
    // An endpoint whose attempt timed out stays slow this long between its attempts.
    inflight: createInflight({ slowMemoryMs: Math.max(60_000, attemptTimeoutMs * 3) }),
    leases: createLeaseKeeper({ db, clock, leaseMs, renewEveryMs, log: options.logger }),
    vacuum: createVacuumer(db),
    open: secretOpener(options.keyring),
    checkUrl: urlChecker(policy),
  };
}

type Holdings = ReturnType<typeof holdingsOf>;

/**
 * Claims up to `limit` due deliveries, respecting the capacity classes (with the room of a
 * claim ahead when `ahead`: see continuous.ts).
 */
function claimer({ db, clock }: WebhookWorkerOptions, settings: Settings, { inflight, open }: Holdings) {
  return async function claim(limit: number, ahead = false): Promise<Claimed[]> {
    const { now, loads } = inflight.loads();
    const classes = ahead ? settings.aheadShares : settings.shares;
    const claimed = await claimDeliveries(db, {
      now: clock.now(),
      limit,
      leaseMs: settings.leaseMs,
      capacity: capacity(loads, now, classes),
      shares: classes,
      institutionIds: settings.institutionIds,
    });
    // Keys are opened here, in memory, for the attempt; they are never written back or logged.
    for (const delivery of claimed) {
      delivery.secret = open(delivery.secret);
      if (delivery.previous_secret) delivery.previous_secret = open(delivery.previous_secret);
    }
    return claimed;
  };
}

/** Taking claimed deliveries, attempting them under their leases, giving back and recording. */
function attempts(options: WebhookWorkerOptions, settings: Settings, holdings: Holdings) {
  const { db, clock, policy } = options;
  const log = options.logger;
  const { agent, inflight, leases, checkUrl } = holdings;

  /**
   * Takes a claimed delivery into this worker: its lease is held (and renewed) from now until its
   * result is recorded, and it counts against the capacity classes until its attempt ends.
   */
  function take(delivery: Claimed): AbortController {
    inflight.add(delivery);
    return leases.hold(delivery);
  }

  /**
   * Gives back taken deliveries whose attempts never started (waiting for an endpoint turned
   * slow, or when the worker stops): due again at once, the attempt the claim counted uncounted.
   */
  async function giveBack(deliveries: Claimed[]): Promise<void> {
    if (deliveries.length === 0) return;
    try {
      await returnLeases(db, deliveries, clock.now());
    } catch (error) {
      log?.error(
        { err: error, count: deliveries.length },
        'giving back webhook deliveries failed; leases will expire',
      );
    } finally {
      for (const delivery of deliveries) {
        leases.release(delivery);
        inflight.remove(delivery);
      }
    }
  }

  /**
   * One attempt under its lease (taken now unless the caller took it: `abandon`); an attempt
   * whose lease was lost, before or during the request, counts only as an attempt line.
   */
  async function attemptOne(delivery: Claimed, abandon: AbortController = take(delivery)): Promise<Result> {
    inflight.started(delivery);
    const timeoutMs = settings.attemptTimeoutMs;
    try {
      const send = () => attemptDelivery(delivery, { agent, clock, policy, timeoutMs, checkUrl }, abandon);
      const attempt = await workerJob('webhooks', send, jobOf(delivery));
      // The lease stays held (and renewed) until the result is recorded: see record().
      const leaseHeld = leases.isHeld(delivery);
      if (leaseHeld) inflight.noteOutcome(delivery.endpoint_id, attempt.outcome);
      else leases.release(delivery);
      return resultOf(delivery, attempt, { random: settings.random, leaseHeld });
    } catch (error) {
      leases.release(delivery);
      throw error;
    } finally {
      inflight.remove(delivery);
    }
  }

  /**
   * Records a batch of results, then lets their leases go. A result waits for its batch (and a
   * batch for the one before it) while its lease is still renewed: released at the end of the
   * attempt, a lease could expire before the result was written, and another worker would
   * claim the delivery and send it again.
   */
  const record = async (results: Result[]) => {
    try {
      await recordResults(db, results, clock.now(), log);
    } finally {
      for (const result of results) {
        if (result.lease_token) leases.release({ id: result.delivery_id, lease_token: result.lease_token });
      }
    }
  };

  return { take, giveBack, attemptOne, record };
}

/**
 * The worker's rounds: claiming due deliveries within the capacity classes, attempting each under
 * its lease, recording results in batches, pruning; used one round at a time (runOnce, drain) and
 * by the continuous mode (./continuous.ts).
 */
function deliveryRounds(options: WebhookWorkerOptions) {
  const settings = settingsOf(options);
  const holdings = holdingsOf(options, settings);
  const { agent, inflight, leases, vacuum } = holdings;
  const claim = claimer(options, settings, holdings);
  const { take, giveBack, attemptOne, record } = attempts(options, settings, holdings);
  const anyDue = () =>
    deliveriesDue(options.db, { now: options.clock.now(), institutionIds: settings.institutionIds });

  /** One round, for tests and tools: claim what is due, deliver all, record, return a summary. */
  async function runOnce(): Promise<RunSummary> {
    return deliver(await claim(Math.min(settings.batchSize, settings.shares.concurrency)));
  }

  /** Attempts these claimed deliveries and records the results (runOnce's second half). */
  async function deliver(claimed: Claimed[]): Promise<RunSummary> {
    const results = await Promise.all(claimed.map((delivery) => attemptOne(delivery)));
    await record(results);
    await vacuum(results.length);
    const outcomes: RunSummary['outcomes'] = {};
    for (const r of results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    return { claimed: claimed.length, outcomes };
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

  const { prune, pruneWhenDue } = createPruner({
    db: options.db,
    clock: options.clock,
    retentionMs: options.retentionMs ?? RETENTION_MS,
    institutionIds: settings.institutionIds,
    log: options.logger,
  });

  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await leases.close();
    await agent.close();
  }

  return {
    ...settings,
    log: options.logger,
    inflight,
    claim,
    anyDue,
    take,
    giveBack,
    attemptOne,
    record,
    vacuum,
    deliver,
    runOnce,
    drain,
    prune,
    pruneWhenDue,
    close,
    isClosed: () => closed,
  };
}

export type DeliveryRounds = ReturnType<typeof deliveryRounds>;

/** A delivery attempt as a worker job: its ids on the span, its outcome as the metrics' label. */
const jobOf = (delivery: Claimed) => ({
  attributes: { 'ssp.delivery_id': delivery.id, 'ssp.endpoint_id': delivery.endpoint_id },
  outcome: (attempt: { outcome: string }) => attempt.outcome,
});

export function createWebhookWorker(options: WebhookWorkerOptions) {
  const rounds = deliveryRounds(options);
  const continuous = continuousMode(rounds);
  return {
    workerId: rounds.workerId,
    claim: rounds.claim,
    deliver: rounds.deliver,
    prune: rounds.prune,
    runOnce: rounds.runOnce,
    drain: rounds.drain,
    /** Starts the continuous loop. */
    start: continuous.start,
    /** Stops claiming, lets in-flight attempts finish (keeping their leases), records them, closes connections. */
    stop: continuous.stop,
    /** Closes the HTTP agent (runOnce users). */
    close: rounds.close,
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
