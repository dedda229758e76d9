// Recording a batch of attempt results (../state.ts): one statement, sent and parsed once.
import type { Queryable } from '../../../../db/db.ts';

/**
 * Inserts the attempt lines of `results` (JSON of ../state.ts's Result) and, only for results
 * whose lease still held, updates their deliveries; returns the deliveries updated. `ids` lets
 * the planner look deliveries up by primary key instead of scanning.
 */
export async function recordResultRows(
  tx: Queryable,
  results: string,
  ids: string[],
): Promise<{ id: string }[]> {
  const { rows } = await tx.query<{ id: string }>(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(institution_id uuid, delivery_id uuid, lease_token uuid,
         endpoint_id uuid, event_id uuid, attempted_at timestamptz, outcome text, status_code int, duration_ms int,
         error text, request_headers jsonb, response_headers jsonb, response_body text, state text,
         next_attempt_at timestamptz)
     ), attempt_lines AS (
       INSERT INTO webhook_attempts (institution_id, delivery_id, endpoint_id, event_id, attempted_at, outcome,
         status_code, duration_ms, error, request_headers, response_headers, response_body)
       SELECT r.institution_id, r.delivery_id, r.endpoint_id, r.event_id, r.attempted_at, r.outcome, r.status_code,
         r.duration_ms, r.error, r.request_headers, r.response_headers, r.response_body
       FROM r WHERE r.delivery_id IN (SELECT id FROM webhook_deliveries WHERE id = ANY ($2::uuid[]))
     )
     UPDATE webhook_deliveries d SET state = r.state,
       next_attempt_at = COALESCE(r.next_attempt_at, d.next_attempt_at),
       last_status = r.status_code, last_error = r.error, last_attempt_at = r.attempted_at,
       completed_at = CASE WHEN r.state = 'pending' THEN NULL ELSE r.attempted_at END,
       lease_token = NULL, lease_until = NULL
     FROM r
     WHERE d.id = ANY ($2::uuid[]) AND d.id = r.delivery_id AND d.lease_token = r.lease_token
     RETURNING d.id`,
    [results, ids],
  );
  return rows;
}
