// Pruning the delivery log (../maintenance.ts runs it): one DELETE of a bounded batch.
import type { Queryable } from '../../../../db/db.ts';

/** Deletes at most `batch` finished deliveries whose event is older than `cutoff`; how many. */
export async function deleteFinishedDeliveries(
  db: Queryable,
  cutoff: Date,
  batch: number,
  institutionIds: string[] | null,
): Promise<number> {
  const { rowCount } = await db.query(
    // The age is the event's (occurred_at), as documented. Deliveries are created with their
    // event, so walking finished deliveries in creation order meets the old events first.
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT d.id FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
       WHERE ev.occurred_at < $1 AND d.state <> 'pending'
         AND ($3::uuid[] IS NULL OR d.institution_id = ANY ($3::uuid[]))
       ORDER BY d.created_at LIMIT $2)`,
    [cutoff, batch, institutionIds],
  );
  return rowCount;
}
