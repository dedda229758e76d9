// Switching endpoints on and off (../state.ts says when), and failing the pending deliveries
// of those switched off.
import type { Queryable } from '../../../../db/db.ts';

/** Disables these endpoints (JSON of `{ id, reason }`, sorted by id) still enabled; the ones disabled now. */
export async function disableEnabledEndpoints(
  tx: Queryable,
  endpoints: string,
  now: Date,
): Promise<{ id: string; reason: string }[]> {
  const { rows } = await tx.query<{ id: string; reason: string }>(
    `UPDATE webhook_endpoints w SET enabled = false, disabled_reason = x.reason, disabled_at = $2, updated_at = $2
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, reason text)
     WHERE w.id = x.id AND w.enabled RETURNING w.id, w.disabled_reason AS reason`,
    [endpoints, now],
  );
  return rows;
}

/** Disables an endpoint with this reason, enabled or not (the reason is replaced). */
export async function disableEndpointWithReason(
  tx: Queryable,
  endpoint: { institutionId: string; id: string },
  reason: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, disabled_at = $4, updated_at = $4
     WHERE institution_id = $1 AND id = $2`,
    [endpoint.institutionId, endpoint.id, reason, now],
  );
}

/** Enables an endpoint, clearing the reason and the failing run. */
export async function enableEndpoint(
  tx: Queryable,
  endpoint: { institutionId: string; id: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE webhook_endpoints SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
       updated_at = $3
     WHERE institution_id = $1 AND id = $2`,
    [endpoint.institutionId, endpoint.id, now],
  );
}

/** Disables an enabled endpoint, recording that an administrator did. */
export async function disableEndpointByAdministratorRow(
  tx: Queryable,
  endpoint: { institutionId: string; id: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'disabled by an administrator',
       disabled_at = $3, updated_at = $3
     WHERE institution_id = $1 AND id = $2 AND enabled`,
    [endpoint.institutionId, endpoint.id, now],
  );
}

/** Marks the pending deliveries of these endpoints (JSON of `{ id, reason }`) failed, each with its reason. */
export async function failPendingDeliveryRows(tx: Queryable, endpoints: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE webhook_deliveries d SET state = 'failed', last_error = x.reason, completed_at = $2,
       lease_token = NULL, lease_until = NULL
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, reason text)
     WHERE d.endpoint_id = x.id AND d.state = 'pending'`,
    [endpoints, now],
  );
}
