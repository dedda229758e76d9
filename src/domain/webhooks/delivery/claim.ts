// Claiming due deliveries: one query per claim, whatever the batch size. Due rows are picked
// with FOR UPDATE SKIP LOCKED, so any number of workers (threads of one process or many
// processes) share the queue and a row is claimed by exactly one of them at a time; two workers
// never wait for each other here.
//
// A claim takes a lease: it stamps a new lease token, sets `lease_until` and moves the due time
// (`next_attempt_at`) to the lease expiry, and counts the attempt. The owner renews the lease
// while the attempt runs (leases.ts). A worker that dies stops renewing, so its rows fall due
// again within one lease and another worker claims them; a result whose token no longer matches
// changes nothing but its attempt line (state.ts). Delivery is at least once.
//
// Capacity (capacity.ts): healthy endpoints' due rows come from the due index, slow or failing
// endpoints' from the per-endpoint due index in a separate branch of at most `slowRoom` rows, so
// a failing endpoint's backlog never hides other endpoints' due rows. Each endpoint's rows are
// numbered on from what this worker already has in flight, and cut at the per-endpoint limit,
// the fair share and the overflow room.
//
// An archived institution's deliveries are not claimed (docs/archiving.md): they stay pending with
// their due time and go out when it is restored. Its due rows are skipped by the scan of the due
// index, one primary-key probe of institutions each: an institution archived by mistake has few.
//
// On failure (a database error) nothing is claimed: the loop logs it and tries again later.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../../db/db.ts';
import type { Capacity, Shares } from './capacity.ts';
import { anyDueDelivery, type ClaimedRow, claimDueDeliveries } from './sql/claim-deliveries.ts';

export interface Claimed extends ClaimedRow {
  /** When the claim was sent (performance.now()): the lease is held at least until then + the lease. */
  held_since: number;
}

export interface ClaimRequest {
  now: Date;
  limit: number;
  leaseMs: number;
  capacity: Capacity;
  shares: Shares;
  /** Only these institutions' deliveries (dedicated workers; tests); null for every one. */
  institutionIds: string[] | null;
}

export async function claimDeliveries(db: Queryable, request: ClaimRequest): Promise<Claimed[]> {
  if (request.limit <= 0) return [];
  const { now, limit, capacity: cap, shares } = request;
  const leaseUntil = new Date(now.getTime() + request.leaseMs);
  const heldSince = performance.now();
  const rows = await claimDueDeliveries(db, {
    now,
    limit,
    leaseToken: randomUUID(),
    excluded: cap.excluded,
    leaseUntil,
    counts: JSON.stringify(cap.counts),
    institutionIds: request.institutionIds,
    perEndpoint: shares.perEndpoint,
    slow: cap.slow,
    slowRoom: cap.slowRoom,
    fairShare: shares.fairShare,
    overflowRoom: cap.overflowRoom,
  });
  for (const row of rows) (row as Claimed).held_since = heldSince;
  return rows as Claimed[];
}

/**
 * Whether a claim could find anything: a delivery is due, not an archived institution's.
 * Deliveries due but not claimable now (an endpoint at its limits) answer yes, and the claim
 * decides.
 */
export function deliveriesDue(
  db: Queryable,
  request: Pick<ClaimRequest, 'now' | 'institutionIds'>,
): Promise<boolean> {
  return anyDueDelivery(db, request);
}
