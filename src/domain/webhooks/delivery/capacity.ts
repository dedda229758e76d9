// Capacity classes of one delivery worker, pure: from what is in flight now, which endpoints may
// be claimed for and how many slots each class has left. No I/O; the worker's loop feeds it a
// snapshot (src/domain/webhooks/delivery/inflight.ts) before every claim.
//
// An endpoint is "slow" when it is failing (`failing_since` set: the claim query knows that) or,
// as far as this worker can tell, when one of its attempts has been in flight longer than
// `slowAfterMs` or timed out recently. Slow endpoints together get at most `slowShare` slots. A
// healthy endpoint's first `fairShare` attempts are free; beyond that they come from an
// overflow pool of `overflowShare` slots shared by every busy endpoint. The rest of the capacity
// is kept for endpoints that are neither slow nor busy, so a hanging endpoint, even one not yet
// known as failing, can never take the whole worker.

export interface Shares {
  /** Deliveries in flight at once in this worker. */
  concurrency: number;
  /** Deliveries of one endpoint in flight at once in this worker. */
  perEndpoint: number;
  /** In flight at once for one endpoint before its further attempts use the overflow pool. */
  fairShare: number;
  /** In flight at once for all slow or failing endpoints together. */
  slowShare: number;
  /** In flight at once beyond the fair share of busy (healthy) endpoints together. */
  overflowShare: number;
  /** An attempt in flight longer than this marks its endpoint slow. */
  slowAfterMs: number;
}

/**
 * The default shares of a worker of `concurrency` slots (256 by default): a sixteenth free per
 * endpoint, a quarter for slow endpoints, half as overflow, half of it for one endpoint. Wall
 * time, so `slowAfterMs` must be generous: a busy event loop stretches every attempt's
 * apparent duration (default: half the attempt timeout).
 */
export function sharesFor(options: Partial<Shares> & { attemptTimeoutMs: number }): Shares {
  const concurrency = options.concurrency ?? 256;
  return {
    concurrency,
    perEndpoint: options.perEndpoint ?? 128,
    fairShare: options.fairShare ?? Math.max(1, Math.floor(concurrency / 16)),
    slowShare: options.slowShare ?? Math.max(1, Math.floor(concurrency / 4)),
    overflowShare: options.overflowShare ?? Math.max(1, Math.floor(concurrency / 2)),
    slowAfterMs: options.slowAfterMs ?? Math.floor(options.attemptTimeoutMs / 2),
  };
}

/**
 * The shares a claim ahead of free slots is made with (continuous.ts): busy endpoints' room grows
 * by `ahead` (one endpoint's, the overflow pool's and the worker's); the slow class's does not.
 */
export function sharesAhead(shares: Shares, ahead: number): Shares {
  return {
    ...shares,
    concurrency: shares.concurrency + ahead,
    perEndpoint: shares.perEndpoint + ahead,
    overflowShare: shares.overflowShare + ahead,
  };
}

/**
 * A claimer waiting for capacity wakes once this many deliveries have finished, so claims stay
 * batched instead of one query per freed slot.
 */
export function wakeAfter(shares: Shares): number {
  return Math.max(1, Math.min(64, Math.floor(shares.perEndpoint / 2)));
}

/** What one endpoint has in flight in this worker. */
export interface EndpointLoad {
  inFlight: number;
  /** Start of its oldest attempt in flight (same time base as `now`). */
  oldestStartedAt: number;
  /** One of its attempts timed out recently in this worker. */
  recentlyTimedOut: boolean;
}

export interface Capacity {
  /** Endpoints not to claim for at all: at their own limit, or busy with no overflow left. */
  excluded: string[];
  /** Endpoints this worker sees as slow (claimed with the failing ones, within `slowRoom`). */
  slow: string[];
  /** In flight per endpoint, so the claim continues each endpoint's count. */
  counts: Record<string, number>;
  slowRoom: number;
  overflowRoom: number;
}

export function capacity(loads: ReadonlyMap<string, EndpointLoad>, now: number, shares: Shares): Capacity {
  const full: string[] = [];
  const slow: string[] = [];
  const busy: string[] = [];
  const counts: Record<string, number> = {};
  let slowInFlight = 0;
  let overflowInFlight = 0;
  for (const [endpoint, load] of loads) {
    if (load.inFlight === 0) continue;
    counts[endpoint] = load.inFlight;
    if (load.inFlight >= shares.perEndpoint) full.push(endpoint);
    if (load.recentlyTimedOut || now - load.oldestStartedAt > shares.slowAfterMs) {
      slow.push(endpoint);
      slowInFlight += load.inFlight;
    } else {
      if (load.inFlight >= shares.fairShare) busy.push(endpoint);
      overflowInFlight += Math.max(0, load.inFlight - shares.fairShare);
    }
  }
  const overflowRoom = Math.max(0, shares.overflowShare - overflowInFlight);
  return {
    excluded: overflowRoom === 0 ? [...full, ...busy] : full,
    slow,
    counts,
    slowRoom: Math.max(0, shares.slowShare - slowInFlight),
    overflowRoom,
  };
}
