// The claim (../claim.ts explains the queue, leases and capacity it implements): due rows of
// healthy endpoints from the due index, slow or failing endpoints' rows from the per-endpoint
// due index in a separate branch, numbered per endpoint and cut at the limits, then leased.
import type { Queryable } from '../../../../db/db.ts';

/** A claimed delivery as the statement returns it. */
export interface ClaimedRow {
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
}

export interface ClaimParameters {
  now: Date;
  limit: number;
  leaseToken: string;
  excluded: string[];
  leaseUntil: Date;
  /** JSON of this worker's in-flight count per endpoint. */
  counts: string;
  institutionIds: string[] | null;
  perEndpoint: number;
  slow: string[];
  slowRoom: number;
  fairShare: number;
  overflowRoom: number;
}

export async function claimDueDeliveries(db: Queryable, p: ClaimParameters): Promise<ClaimedRow[]> {
  const { rows } = await db.query<ClaimedRow>(
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
      /* $1 */ p.now,
      /* $2 */ p.limit,
      /* $3 */ p.leaseToken,
      /* $4 */ p.excluded,
      /* $5 */ p.leaseUntil,
      /* $6 */ p.counts,
      /* $7 */ p.institutionIds,
      /* $8 */ p.perEndpoint,
      /* $9 */ p.slow,
      /* $10 */ p.slowRoom,
      /* $11 */ p.fairShare,
      /* $12 */ p.overflowRoom,
    ],
  );
  return rows;
}

/**
 * Whether any delivery is due: the idle worker's poll. It reads the due index for one row, where
 * a claim (above) is planned whole each time: on the embedded database a claim that finds
 * nothing costs some 4-5 ms of CPU, twenty times a second, and this a fraction of it.
 */
export async function anyDueDelivery(
  db: Queryable,
  p: { now: Date; institutionIds: string[] | null },
): Promise<boolean> {
  const { rows } = await db.query<{ due: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM webhook_deliveries d
       WHERE d.state = 'pending' AND d.next_attempt_at <= $1
         AND ($2::uuid[] IS NULL OR d.institution_id = ANY ($2::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = d.institution_id AND i.archived_at IS NOT NULL)
     ) AS due`,
    [p.now, p.institutionIds],
  );
  return rows[0].due;
}
