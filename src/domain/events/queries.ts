// The event log's SQL (./record.ts builds the events): the only INSERT into `events`.
import type { Queryable } from '../../db/db.ts';

/**
 * Inserts events (JSON of `{ ord, institution_id, type, help_request_id, payload, occurred_at }`)
 * in `ord` order, in one statement; their ids and sequence numbers in that order.
 */
export async function insertEvents(tx: Queryable, events: string): Promise<{ id: string; seq: number }[]> {
  const { rows } = await tx.query<{ id: string; seq: number }>(
    `WITH inserted AS (
       INSERT INTO events (institution_id, type, help_request_id, payload, occurred_at)
       SELECT e.institution_id, e.type, e.help_request_id, e.payload, e.occurred_at
       FROM jsonb_to_recordset($1::jsonb) AS e(ord integer, institution_id uuid, type text,
         help_request_id uuid, payload jsonb, occurred_at timestamptz)
       ORDER BY e.ord
       RETURNING id, seq
     )
     SELECT id, seq FROM inserted ORDER BY seq`,
    [events],
  );
  return rows;
}
