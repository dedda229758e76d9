// Putting deliveries back in the queue (../state.ts): one event to one endpoint now, or an
// endpoint's failed deliveries since a time.
import type { Queryable } from '../../../../db/db.ts';

/** A new delivery due now, or the existing one back in the queue with its attempt count reset. */
export async function upsertDueDelivery(
  q: Queryable,
  delivery: { institutionId: string; endpointId: string; eventId: string },
  now: Date,
): Promise<{ id: string }> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (institution_id, endpoint_id, event_id, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (event_id, endpoint_id) DO UPDATE SET state = 'pending', attempts = 0,
       next_attempt_at = $4, lease_token = NULL, lease_until = NULL, completed_at = NULL
     RETURNING id`,
    [delivery.institutionId, delivery.endpointId, delivery.eventId, now],
  );
  return rows[0];
}

/** Puts an endpoint's failed deliveries whose event occurred at or after `since` back in the queue; how many. */
export async function requeueFailedDeliveries(
  q: Queryable,
  endpoint: { institutionId: string; id: string },
  since: Date,
  now: Date,
): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE webhook_deliveries d SET state = 'pending', attempts = 0, next_attempt_at = $4,
       lease_token = NULL, lease_until = NULL, completed_at = NULL
     FROM events ev
     WHERE d.institution_id = $1 AND d.endpoint_id = $2 AND d.state = 'failed'
       AND ev.id = d.event_id AND ev.occurred_at >= $3`,
    [endpoint.institutionId, endpoint.id, since, now],
  );
  return rowCount;
}
