// Webhook endpoints of an institution: configuration, secrets and rotation, the delivery log,
// manual redelivery, replay, test events and metrics. Delivery itself is the worker's
// (src/domain/webhooks/delivery/), and every change of delivery state, including the ones made
// here (disabling, enabling, redelivery, replay), is written by delivery/state.ts.
import type { Db, Queryable } from '../../db/db.ts';
import { type KeysetPage, keysetPage, type Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CursorKey, KeysetOrder } from '../../lib/cursor.ts';
import type { Keyring } from '../../lib/encryption.ts';
import { uuidPattern } from '../../lib/ids.ts';
import {
  checkOutboundUrl,
  type OutboundPolicy,
  type Resolver,
  systemResolver,
} from '../../lib/outbound-url.ts';
import { recordEvent } from '../events/record.ts';
import {
  disableEndpointByAdministrator,
  enqueueDelivery,
  replayFailedDeliveries,
  setEndpointEnabled,
} from './delivery/state.ts';
import { ROTATION_WINDOW_MS } from './schedule.ts';
import { generateWebhookSecret } from './signing.ts';

export const EVENT_TYPES = ['help_request.created', 'help_request.crisis', 'help_request.updated'] as const;
export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookEndpoint {
  id: string;
  institution_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const endpointColumns = `id, institution_id, url, description, event_types, enabled, disabled_reason, disabled_at,
  failing_since, CASE WHEN previous_secret_expires_at > $NOW THEN previous_secret_expires_at END AS previous_secret_expires_at,
  created_at, updated_at`;

const cols = (nowParam: string) => endpointColumns.replace('$NOW', nowParam);

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  id: number;
  delivery_id: string;
  event_id: string;
  attempted_at: Date;
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface EndpointInput {
  url?: unknown;
  event_types?: unknown;
  description?: unknown;
  enabled?: unknown;
}

export interface WebhooksDeps {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  /** Signing keys are stored encrypted with it (they must be usable again, so not hashed). */
  keyring: Keyring;
  resolve?: Resolver;
}

export const endpointOrder: KeysetOrder = { listing: 'webhook-endpoints', key: ['timestamp', 'uuid'] };
/** Deliveries newest first. */
export const deliveryOrder: KeysetOrder = { listing: 'webhook-deliveries', key: ['timestamp', 'uuid'] };
/** Attempts newest first. */
export const attemptOrder: KeysetOrder = { listing: 'webhook-attempts', key: ['int'] };

export function createWebhooksService(deps: WebhooksDeps) {
  const { db, clock, policy, keyring } = deps;
  const resolve = deps.resolve ?? systemResolver;

  async function validUrl(url: unknown): Promise<string> {
    if (typeof url !== 'string' || url.length === 0 || url.length > 2048)
      throw new ApiError('invalid_field', {
        field: 'url',
        detail: 'url must be a string of 1 to 2048 characters',
      });
    const verdict = await checkOutboundUrl(url, policy, resolve);
    if (!verdict.ok) throw new ApiError('url_not_allowed', { field: 'url', detail: verdict.reason });
    return verdict.url.toString();
  }

  function validTypes(types: unknown): string[] {
    if (!Array.isArray(types) || types.length > EVENT_TYPES.length * 2)
      throw new ApiError('invalid_field', {
        field: 'event_types',
        detail: 'event_types must be an array of event types',
      });
    for (const type of types) {
      if (typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type))
        throw new ApiError('invalid_field', {
          field: 'event_types',
          detail: `unknown event type ${JSON.stringify(type)}; known: ${EVENT_TYPES.join(', ')}`,
        });
    }
    return [...new Set(types as string[])].sort();
  }

  function validDescription(description: unknown): string | null {
    if (description === null || description === undefined) return null;
    if (typeof description !== 'string' || description.length > 500)
      throw new ApiError('invalid_field', {
        field: 'description',
        detail: 'description: at most 500 characters',
      });
    return description;
  }

  function notFound(): never {
    throw new ApiError('not_found', { detail: 'no such webhook endpoint' });
  }

  async function get(institutionId: string, id: string, q: Queryable = db): Promise<WebhookEndpoint> {
    if (!uuidPattern.test(id)) notFound();
    const { rows } = await q.query<WebhookEndpoint>(
      `SELECT ${cols('$3')} FROM webhook_endpoints WHERE institution_id = $1 AND id = $2`,
      [institutionId, id, clock.now()],
    );
    return rows[0] ?? notFound();
  }

  async function requireEvent(institutionId: string, eventId: string): Promise<void> {
    if (!uuidPattern.test(eventId)) throw new ApiError('not_found', { detail: 'no such event' });
    const { rows } = await db.query('SELECT 1 FROM events WHERE institution_id = $1 AND id = $2', [
      institutionId,
      eventId,
    ]);
    if (rows.length === 0) throw new ApiError('not_found', { detail: 'no such event' });
  }

  return {
    get,

    async create(institutionId: string, input: EndpointInput): Promise<WebhookEndpoint & { secret: string }> {
      const url = await validUrl(input.url);
      const types = input.event_types === undefined ? [] : validTypes(input.event_types);
      const description = validDescription(input.description);
      const enabled = input.enabled === undefined ? true : input.enabled;
      if (typeof enabled !== 'boolean') throw new ApiError('invalid_field', { field: 'enabled' });
      const secret = generateWebhookSecret();
      const now = clock.now();
      const { rows } = await db.query<WebhookEndpoint>(
        `INSERT INTO webhook_endpoints (institution_id, url, description, event_types, enabled, secret,
           disabled_at, disabled_reason, created_at, updated_at)
         VALUES ($1, $2, $4, $5::text[], $6, $7, CASE WHEN $6 THEN NULL ELSE $3::timestamptz END,
           CASE WHEN $6 THEN NULL ELSE 'disabled by an administrator' END, $3, $3)
         RETURNING ${cols('$3')}`,
        [institutionId, url, now, description, types, enabled, keyring.encrypt(secret)],
      );
      return { ...rows[0], secret };
    },

    async list(institutionId: string, page: KeysetPage): Promise<Paged<WebhookEndpoint>> {
      const { rows } = await db.query<WebhookEndpoint & { sort_key: CursorKey }>(
        `SELECT ${cols('$3')}, json_build_array(created_at, id) AS sort_key FROM webhook_endpoints
         WHERE institution_id = $1 AND ($4::timestamptz IS NULL OR (created_at, id) > ($4::timestamptz, $5::uuid))
         ORDER BY created_at, id LIMIT $2`,
        [institutionId, page.limit + 1, clock.now(), page.after?.[0] ?? null, page.after?.[1] ?? null],
      );
      return keysetPage(rows, page.limit);
    },

    async update(institutionId: string, id: string, input: EndpointInput): Promise<WebhookEndpoint> {
      await get(institutionId, id);
      const url = input.url === undefined ? null : await validUrl(input.url);
      const types = input.event_types === undefined ? null : validTypes(input.event_types);
      const description = input.description === undefined ? undefined : validDescription(input.description);
      if (input.enabled !== undefined && typeof input.enabled !== 'boolean')
        throw new ApiError('invalid_field', { field: 'enabled', detail: 'enabled must be true or false' });
      const enabled = input.enabled as boolean | undefined;
      const now = clock.now();
      return db.transaction(async (tx) => {
        // Enabling clears the reason and the failure run; disabling by hand records it and fails
        // the pending deliveries.
        if (enabled !== undefined) await setEndpointEnabled(tx, { institutionId, id }, enabled, now);
        const { rows } = await tx.query<WebhookEndpoint>(
          `UPDATE webhook_endpoints SET
             url = COALESCE($3, url),
             event_types = COALESCE($4::text[], event_types),
             description = CASE WHEN $5 THEN $6 ELSE description END,
             updated_at = $7
           WHERE institution_id = $1 AND id = $2
           RETURNING ${cols('$7')}`,
          [institutionId, id, url, types, description !== undefined, description ?? null, now],
        );
        return rows[0] ?? notFound();
      });
    },

    async disable(institutionId: string, id: string, reason?: string): Promise<WebhookEndpoint> {
      await get(institutionId, id);
      const now = clock.now();
      const why = reason
        ? `disabled by an administrator: ${reason.slice(0, 300)}`
        : 'disabled by an administrator';
      return db.transaction(async (tx) => {
        await disableEndpointByAdministrator(tx, { institutionId, id }, why, now);
        return get(institutionId, id, tx);
      });
    },

    async remove(institutionId: string, id: string): Promise<void> {
      if (!uuidPattern.test(id)) notFound();
      const { rowCount } = await db.query(
        'DELETE FROM webhook_endpoints WHERE institution_id = $1 AND id = $2',
        [institutionId, id],
      );
      if (rowCount === 0) notFound();
    },

    /** New secret now; the previous one keeps signing beside it for ROTATION_WINDOW_MS. */
    async rotateSecret(
      institutionId: string,
      id: string,
    ): Promise<{ secret: string; previous_secret_expires_at: Date }> {
      if (!uuidPattern.test(id)) notFound();
      const secret = generateWebhookSecret();
      const now = clock.now();
      const expires = new Date(now.getTime() + ROTATION_WINDOW_MS);
      const { rows } = await db.query<{ id: string }>(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $4,
           secret = $3, updated_at = $5
         WHERE institution_id = $1 AND id = $2 RETURNING id`,
        [institutionId, id, keyring.encrypt(secret), expires, now],
      );
      if (rows.length === 0) notFound();
      return { secret, previous_secret_expires_at: expires };
    },

    /** Sends a `webhook.test` event to this endpoint only (delivered like any event). */
    async sendTest(institutionId: string, id: string): Promise<{ event_id: string; delivery_id: string }> {
      const endpoint = await get(institutionId, id);
      if (!endpoint.enabled)
        throw new ApiError('endpoint_disabled', {
          detail: 'enable the endpoint before sending a test event',
        });
      const now = clock.now();
      return db.transaction(async (tx) => {
        const event = await recordEvent(tx, {
          institutionId,
          type: TEST_EVENT_TYPE,
          data: { endpoint_id: id, message: 'This is a test event sent from the platform.' },
          occurredAt: now,
        });
        // `webhook.*` events are not fanned out by the trigger: the delivery is created here.
        const delivery = await enqueueDelivery(tx, { institutionId, endpointId: id, eventId: event.id }, now);
        return { event_id: event.id, delivery_id: delivery.id };
      });
    },

    /**
     * Delivers one event to this endpoint again, now, whatever happened before (a new delivery
     * is created when the endpoint never had one for it). The attempt history is kept.
     */
    async redeliver(institutionId: string, id: string, eventId: string): Promise<{ delivery_id: string }> {
      const endpoint = await get(institutionId, id);
      if (!endpoint.enabled)
        throw new ApiError('endpoint_disabled', { detail: 'enable the endpoint before redelivering' });
      await requireEvent(institutionId, eventId);
      const delivery = await enqueueDelivery(db, { institutionId, endpointId: id, eventId }, clock.now());
      return { delivery_id: delivery.id };
    },

    /** Puts every failed (given up) delivery of this endpoint whose event occurred at or after `since` back in the queue. */
    async replayFailed(institutionId: string, id: string, since: Date): Promise<{ requeued: number }> {
      const endpoint = await get(institutionId, id);
      if (!endpoint.enabled)
        throw new ApiError('endpoint_disabled', { detail: 'enable the endpoint before replaying' });
      const requeued = await replayFailedDeliveries(db, { institutionId, id }, since, clock.now());
      return { requeued };
    },

    /**
     * Deliveries of one endpoint, newest first; optionally only one state, and with each
     * delivery's attempts (read by webhook_attempts_delivery_idx within the same statement).
     */
    async deliveries(
      institutionId: string,
      id: string,
      filter: KeysetPage & { state?: string; withAttempts?: boolean },
    ) {
      await get(institutionId, id);
      const attemptLog = filter.withAttempts
        ? `, COALESCE((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'attempted_at', a.attempted_at,
             'outcome', a.outcome, 'status_code', a.status_code, 'duration_ms', a.duration_ms, 'error', a.error)
             ORDER BY a.id) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempt_log`
        : '';
      const { rows } = await db.query<DeliveryRow & { sort_key: CursorKey }>(
        `SELECT d.id, d.event_id, ev.type AS event_type, d.state, d.attempts, d.last_status, d.last_error,
                d.last_attempt_at, CASE WHEN d.state = 'pending' THEN d.next_attempt_at END AS next_attempt_at,
                d.created_at, d.completed_at, json_build_array(d.created_at, d.id) AS sort_key${attemptLog}
         FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
         WHERE d.institution_id = $1 AND d.endpoint_id = $2 AND ($4::text IS NULL OR d.state = $4)
           AND ($5::timestamptz IS NULL OR (d.created_at, d.id) < ($5::timestamptz, $6::uuid))
         ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
        [
          institutionId,
          id,
          filter.limit + 1,
          filter.state ?? null,
          filter.after?.[0] ?? null,
          filter.after?.[1] ?? null,
        ],
      );
      return keysetPage(rows, filter.limit);
    },

    /** Attempt log of one endpoint, newest first. */
    async attempts(institutionId: string, id: string, page: KeysetPage) {
      await get(institutionId, id);
      const { rows } = await db.query<AttemptRow & { sort_key: CursorKey }>(
        `SELECT a.id, a.delivery_id, a.event_id, a.attempted_at, a.outcome, a.status_code, a.duration_ms, a.error,
                json_build_array(a.id) AS sort_key
         FROM webhook_attempts a WHERE a.institution_id = $1 AND a.endpoint_id = $2
           AND ($4::bigint IS NULL OR a.id < $4::bigint)
         ORDER BY a.id DESC LIMIT $3`,
        [institutionId, id, page.limit + 1, page.after?.[0] ?? null],
      );
      return keysetPage(rows, page.limit);
    },

    /** One event, and for each endpoint it went to, the delivery and every attempt. */
    async eventDeliveries(institutionId: string, eventId: string) {
      await requireEvent(institutionId, eventId);
      const { rows: events } = await db.query<{
        id: string;
        type: string;
        occurred_at: Date;
        payload: unknown;
      }>('SELECT id, type, occurred_at, payload FROM events WHERE institution_id = $1 AND id = $2', [
        institutionId,
        eventId,
      ]);
      const { rows: deliveries } = await db.query<{ id: string; attempt_log: unknown }>(
        `SELECT d.id, d.endpoint_id, w.url, d.state, d.attempts, d.last_status, d.last_error, d.last_attempt_at,
                CASE WHEN d.state = 'pending' THEN d.next_attempt_at END AS next_attempt_at, d.created_at, d.completed_at,
                COALESCE((SELECT jsonb_agg(jsonb_build_object('attempted_at', a.attempted_at, 'outcome', a.outcome,
                   'status_code', a.status_code, 'duration_ms', a.duration_ms, 'error', a.error) ORDER BY a.id)
                   FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempt_log
         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE d.institution_id = $1 AND d.event_id = $2 ORDER BY d.created_at, d.id`,
        [institutionId, eventId],
      );
      return { event: events[0], deliveries };
    },

    /**
     * Queue depth and delivery outcomes, over every institution (operator view). Every count
     * reads a partial index or a time window, never the whole delivery history.
     */
    async metrics() {
      const now = clock.now();
      const { rows: queue } = await db.query<Record<string, number>>(
        `SELECT count(*) AS pending,
                count(*) FILTER (WHERE next_attempt_at <= $1 AND lease_until IS NULL) AS due,
                count(*) FILTER (WHERE lease_until > $1) AS in_flight,
                count(*) FILTER (WHERE next_attempt_at > $1 AND attempts > 0
                                       AND (lease_until IS NULL OR lease_until <= $1)) AS retrying,
                COALESCE(EXTRACT(EPOCH FROM ($1 - min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1))), 0)::float8
                  AS oldest_due_age_seconds
         FROM webhook_deliveries WHERE state = 'pending'`,
        [now],
      );
      const { rows: failed } = await db.query<{ failed: number; failed_last_day: number }>(
        `SELECT count(*) AS failed, count(*) FILTER (WHERE completed_at > $1::timestamptz - interval '1 day') AS failed_last_day
         FROM webhook_deliveries WHERE state = 'failed'`,
        [now],
      );
      const { rows: attempts } = await db.query<{ outcome: string; last_hour: number; last_day: number }>(
        `SELECT outcome, count(*) FILTER (WHERE attempted_at > $1::timestamptz - interval '1 hour') AS last_hour,
                count(*) AS last_day
         FROM webhook_attempts WHERE attempted_at > $1::timestamptz - interval '1 day' GROUP BY outcome ORDER BY outcome`,
        [now],
      );
      const { rows: endpoints } = await db.query<{ enabled: number; disabled: number }>(
        'SELECT count(*) FILTER (WHERE enabled) AS enabled, count(*) FILTER (WHERE NOT enabled) AS disabled FROM webhook_endpoints',
      );
      return {
        queue: { ...queue[0], ...failed[0] },
        attempts: Object.fromEntries(
          attempts.map((a) => [a.outcome, { last_hour: a.last_hour, last_day: a.last_day }]),
        ),
        endpoints: endpoints[0],
        measured_at: now,
      };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
