// The SQL of webhook endpoints and their logs, one function per statement, each taking the
// connection or transaction it runs in. Changes of delivery state (disabling, enabling,
// redelivery, replay) are written by ./delivery/state.ts, never here.
//
// Indexes: endpoints are read by (institution_id, id) and listed by (institution_id, created_at,
// id); an endpoint's deliveries by (endpoint_id, created_at, id) and its attempts by
// (endpoint_id, id); a delivery's attempts by webhook_attempts_delivery_idx (migration 0005 and
// later). The delivery metrics over every institution are read by ./metrics.ts.
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, type Paged, readKeysetPage } from '../../db/keyset.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';
import { type QueueDepth, selectQueueDepth } from '../../db/queue-depth.ts';
import type { DeliveryState, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './schemas.ts';

/**
 * The columns of an endpoint as shown; `previous_secret_expires_at` only while the rotation
 * window is open (at `now`, the given parameter).
 */
const endpointColumns = (nowParam: string) => `id, institution_id, url, description, event_types, enabled,
  disabled_reason, disabled_at, failing_since,
  CASE WHEN previous_secret_expires_at > ${nowParam} THEN previous_secret_expires_at END AS previous_secret_expires_at,
  created_at, updated_at`;

export async function selectEndpoint(
  db: Queryable,
  institutionId: string,
  id: string,
  now: Date,
): Promise<WebhookEndpoint | undefined> {
  const { rows } = await db.query<WebhookEndpoint>(
    `SELECT ${endpointColumns('$3')} FROM webhook_endpoints WHERE institution_id = $1 AND id = $2`,
    [institutionId, id, now],
  );
  return rows[0];
}

export interface NewEndpointRow {
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  /** The signing secret, encrypted. */
  secret: string;
  now: Date;
}

/** Inserts an endpoint; one created disabled records that an administrator disabled it. */
export async function insertEndpoint(
  db: Queryable,
  institutionId: string,
  row: NewEndpointRow,
): Promise<WebhookEndpoint> {
  const { rows } = await db.query<WebhookEndpoint>(
    `INSERT INTO webhook_endpoints (institution_id, url, description, event_types, enabled, secret,
       disabled_at, disabled_reason, created_at, updated_at)
     VALUES ($1, $2, $4, $5::text[], $6, $7, CASE WHEN $6 THEN NULL ELSE $3::timestamptz END,
       CASE WHEN $6 THEN NULL ELSE 'disabled by an administrator' END, $3, $3)
     RETURNING ${endpointColumns('$3')}`,
    [institutionId, row.url, row.now, row.description, row.eventTypes, row.enabled, row.secret],
  );
  return rows[0];
}

/** A page of the institution's endpoints, oldest first. */
export async function selectEndpointPage(
  db: Queryable,
  institutionId: string,
  page: KeysetPage,
  now: Date,
): Promise<Paged<WebhookEndpoint>> {
  return readKeysetPage<WebhookEndpoint>(
    db,
    `SELECT ${endpointColumns('$2')}, json_build_array(created_at, id) AS sort_key FROM webhook_endpoints
     WHERE institution_id = $1 AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4::uuid))
     ORDER BY created_at, id LIMIT $5`,
    [institutionId, now],
    page,
    2,
  );
}

export interface EndpointFields {
  /** null: unchanged. */
  url: string | null;
  /** null: unchanged. */
  eventTypes: string[] | null;
  /** undefined: unchanged; null: none. */
  description: string | null | undefined;
  now: Date;
}

/** Writes an endpoint's configuration fields; undefined when there is no such endpoint. */
export async function updateEndpointFields(
  tx: Queryable,
  institutionId: string,
  id: string,
  fields: EndpointFields,
): Promise<WebhookEndpoint | undefined> {
  const { rows } = await tx.query<WebhookEndpoint>(
    `UPDATE webhook_endpoints SET
       url = COALESCE($3, url),
       event_types = COALESCE($4::text[], event_types),
       description = CASE WHEN $5 THEN $6 ELSE description END,
       updated_at = $7
     WHERE institution_id = $1 AND id = $2
     RETURNING ${endpointColumns('$7')}`,
    [
      institutionId,
      id,
      fields.url,
      fields.eventTypes,
      fields.description !== undefined,
      fields.description ?? null,
      fields.now,
    ],
  );
  return rows[0];
}

/** Deletes an endpoint (its deliveries and attempts go with it); false when there was none. */
export async function deleteEndpoint(db: Queryable, institutionId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE institution_id = $1 AND id = $2', [
    institutionId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Makes the current secret the previous one until `expires`, and signs with `secret` from now. */
export async function replaceSecret(
  db: Queryable,
  institutionId: string,
  id: string,
  change: { secret: string; expires: Date; now: Date },
): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $4,
       secret = $3, updated_at = $5
     WHERE institution_id = $1 AND id = $2 RETURNING id`,
    [institutionId, id, change.secret, change.expires, change.now],
  );
  return rows.length > 0;
}

/** Whether the institution has this event. */
export async function eventExists(db: Queryable, institutionId: string, eventId: string): Promise<boolean> {
  return (await selectOwnedRow(db, 'events', '1', institutionId, eventId)) !== undefined;
}

/** One event of the institution, or undefined. */
export const selectEvent = (db: Queryable, institutionId: string, eventId: string) =>
  selectOwnedRow<{ id: string; type: string; occurred_at: Date; payload: unknown }>(
    db,
    'events',
    'id, type, occurred_at, payload',
    institutionId,
    eventId,
  );

export interface DeliveryQuery extends KeysetPage {
  state?: DeliveryState;
  withAttempts?: boolean;
}

/**
 * A page of one endpoint's deliveries, newest first; with each delivery's attempts when asked
 * (read by webhook_attempts_delivery_idx within the same statement).
 */
export async function selectDeliveryPage(
  db: Queryable,
  institutionId: string,
  endpointId: string,
  filter: DeliveryQuery,
): Promise<Paged<WebhookDelivery>> {
  const attemptLog = filter.withAttempts
    ? `, COALESCE((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'attempted_at', a.attempted_at,
         'outcome', a.outcome, 'status_code', a.status_code, 'duration_ms', a.duration_ms, 'error', a.error)
         ORDER BY a.id) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempt_log`
    : '';
  return readKeysetPage<WebhookDelivery>(
    db,
    `SELECT d.id, d.event_id, ev.type AS event_type, d.state, d.attempts, d.last_status, d.last_error,
            d.last_attempt_at, CASE WHEN d.state = 'pending' THEN GREATEST(d.next_attempt_at, d.lease_until) END AS next_attempt_at,
            d.created_at, d.completed_at, json_build_array(d.created_at, d.id) AS sort_key${attemptLog}
     FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
     WHERE d.institution_id = $1 AND d.endpoint_id = $2 AND ($3::text IS NULL OR d.state = $3)
       AND ($4::timestamptz IS NULL OR (d.created_at, d.id) < ($4::timestamptz, $5::uuid))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $6`,
    [institutionId, endpointId, filter.state ?? null],
    filter,
    2,
  );
}

/** A page of one endpoint's attempts, newest first. */
export async function selectAttemptPage(
  db: Queryable,
  institutionId: string,
  endpointId: string,
  page: KeysetPage,
): Promise<Paged<WebhookAttempt>> {
  return readKeysetPage<WebhookAttempt>(
    db,
    `SELECT a.id, a.delivery_id, a.event_id, a.attempted_at, a.outcome, a.status_code, a.duration_ms, a.error,
            json_build_array(a.id) AS sort_key
     FROM webhook_attempts a WHERE a.institution_id = $1 AND a.endpoint_id = $2
       AND ($3::bigint IS NULL OR a.id < $3::bigint)
     ORDER BY a.id DESC LIMIT $4`,
    [institutionId, endpointId],
    page,
  );
}

interface AttemptExchangeRow extends WebhookAttempt {
  url: string;
  request_headers: Record<string, string> | null;
  request_body: string;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/** One attempt of one endpoint with what was sent and what came back, or undefined. */
export async function selectAttempt(
  db: Queryable,
  institutionId: string,
  endpointId: string,
  attemptId: string,
): Promise<AttemptExchangeRow | undefined> {
  const { rows } = await db.query<AttemptExchangeRow>(
    `SELECT a.id::int AS id, a.delivery_id, a.event_id, a.attempted_at, a.outcome, a.status_code, a.duration_ms,
            a.error, w.url, a.request_headers, ev.payload::text AS request_body, a.response_headers, a.response_body
     FROM webhook_attempts a
     JOIN webhook_endpoints w ON w.id = a.endpoint_id
     JOIN events ev ON ev.id = a.event_id
     WHERE a.id = $3::bigint AND a.institution_id = $1 AND a.endpoint_id = $2`,
    [institutionId, endpointId, attemptId],
  );
  return rows[0];
}

/** The endpoint's encrypted signing secret, or undefined. */
export async function selectEndpointSecret(
  db: Queryable,
  institutionId: string,
  id: string,
): Promise<string | undefined> {
  const row = await selectOwnedRow<{ secret: string }>(db, 'webhook_endpoints', 'secret', institutionId, id);
  return row?.secret;
}

/** Every delivery of one event (one per endpoint it went to), each with every attempt. */
export async function selectEventDeliveries(
  db: Queryable,
  institutionId: string,
  eventId: string,
): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT d.id, d.endpoint_id, w.url, d.state, d.attempts, d.last_status, d.last_error, d.last_attempt_at,
            CASE WHEN d.state = 'pending' THEN GREATEST(d.next_attempt_at, d.lease_until) END AS next_attempt_at, d.created_at, d.completed_at,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('attempted_at', a.attempted_at, 'outcome', a.outcome,
               'status_code', a.status_code, 'duration_ms', a.duration_ms, 'error', a.error) ORDER BY a.id)
               FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempt_log
     FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.institution_id = $1 AND d.event_id = $2 ORDER BY d.created_at, d.id`,
    [institutionId, eventId],
  );
  return rows;
}

/** The delivery worker's queue for the metrics: deliveries due now and not leased, and the oldest's wait. */
export function selectDeliveryQueue(q: Queryable, now: Date): Promise<QueueDepth> {
  return selectQueueDepth(
    q,
    'next_attempt_at',
    `FROM webhook_deliveries
     WHERE state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)`,
    now,
  );
}
