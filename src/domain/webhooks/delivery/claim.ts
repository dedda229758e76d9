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

export interface Claimed {
  id: string;
  lease_token: string;
  endpoint_id: string;
  institution_id: string;
  event_id: string;
  /** Attempts so far, this one included. */
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  body: string;
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
  const { rows } = await db.query<Omit<Claimed, 'held_since'>>(
    `WITH healthy AS (
       SELECT d.id, d.endpoint_id, false AS slow FROM webhook_deliveries d
       JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled AND w.failing_since IS NULL
       WHERE d.state = 'pending' AND d.next_attempt_at <= $1
         AND NOT (d.endpoint_id = ANY ($4::uuid[])) AND NOT (d.endpoint_id = ANY ($9::uuid[]))
         AND ($7::uuid[] IS NULL OR d.institution_id = ANY ($7::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = d.institution_id AND i.archived_at IS NOT NULL)
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
         AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = w.institution_id AND i.archived_at IS NOT NULL)
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
    // Positional, as the plan of this hot query depends on them being plain parameters.
    [
      /* $1 */ now,
      /* $2 */ limit,
      /* $3 */ randomUUID(),
      /* $4 */ cap.excluded,
      /* $5 */ leaseUntil,
      /* $6 */ JSON.stringify(cap.counts),
      /* $7 */ request.institutionIds,
      /* $8 */ shares.perEndpoint,
      /* $9 */ cap.slow,
      /* $10 */ cap.slowRoom,
      /* $11 */ shares.fairShare,
      /* $12 */ cap.overflowRoom,
    ],
  );
  for (const row of rows) (row as Claimed).held_since = heldSince;
  return rows as Claimed[];
}
