// The lease statements (../leases.ts keeps the leases): renewing this worker's leases, locked
// in id order with SKIP LOCKED so a renewal never waits, and giving back leases never attempted.
import type { Queryable } from '../../../../db/db.ts';

export type LeaseStatus = 'renewed' | 'busy' | 'lost';

/** Moves the expiry and due time of the leases whose token still matches; a status for each. */
export async function renewLeaseRows(
  db: Queryable,
  leases: { id: string; token: string }[],
  until: Date,
): Promise<{ id: string; status: LeaseStatus }[]> {
  const { rows } = await db.query<{ id: string; status: LeaseStatus }>(
    `WITH held AS (
       SELECT h.id, h.token FROM jsonb_to_recordset($1::jsonb) AS h(id uuid, token uuid)
     ), mine AS (
       SELECT d.id FROM webhook_deliveries d JOIN held h ON h.id = d.id
       WHERE d.id = ANY ($3::uuid[]) AND d.lease_token = h.token AND d.state = 'pending'
       ORDER BY d.id
       FOR UPDATE OF d SKIP LOCKED
     ), renewed AS (
       UPDATE webhook_deliveries d SET lease_until = $2, next_attempt_at = $2
       FROM mine WHERE d.id = mine.id
       RETURNING d.id
     )
     SELECT h.id, CASE
         WHEN EXISTS (SELECT 1 FROM renewed r WHERE r.id = h.id) THEN 'renewed'
         WHEN EXISTS (SELECT 1 FROM webhook_deliveries d
                      WHERE d.id = h.id AND d.lease_token = h.token AND d.state = 'pending') THEN 'busy'
         ELSE 'lost' END AS status
     FROM held h`,
    [JSON.stringify(leases), until, leases.map((l) => l.id)],
  );
  return rows;
}

/** Due again at `now`, the lease cleared and the claim's attempt taken back, where the token matches. */
export async function returnLeaseRows(
  db: Queryable,
  leases: { id: string; lease_token: string }[],
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries d SET lease_token = NULL, lease_until = NULL, next_attempt_at = $2,
       attempts = greatest(d.attempts - 1, 0)
     FROM jsonb_to_recordset($1::jsonb) AS h(id uuid, token uuid)
     WHERE d.id = ANY ($3::uuid[]) AND d.id = h.id AND d.lease_token = h.token AND d.state = 'pending'`,
    [JSON.stringify(leases.map((l) => ({ id: l.id, token: l.lease_token }))), now, leases.map((l) => l.id)],
  );
}
