// Recording an event: written in the same transaction as the change it announces, so the
// event log is a transactional outbox. Webhook delivery reads events from here.
import type { Queryable } from '../../db/db.ts';

export type HelpRequestEventType = 'help_request.created' | 'help_request.crisis' | 'help_request.updated';

/** Where a change came from: the help-desk sync endpoint, or anything else on the platform. */
export type EventOrigin = 'integration' | 'platform';

/** The `data` of a help-request event, as webhook consumers receive it. */
export interface HelpRequestEventData {
  help_request_id: string;
  status: string;
  priority: string;
  /** Present once set on the request. */
  external_ref?: string;
  origin: EventOrigin;
  /** The name the change is attributed to (staff member or integration actor). */
  actor: string | null;
  /** Increases with every change of the request, so consumers can drop stale events. */
  version: number;
  updated_at: string;
  [extra: string]: unknown;
}

export interface RecordedEvent {
  id: string;
  seq: number;
}

/**
 * Appends an event. `payload` is the whole webhook body: {type, timestamp, data}.
 * Must be called with the transaction that makes the change.
 *
 * The insert also creates rows this code does not write: the trigger `events_webhook_fan_out`
 * (0005_webhooks.sql) adds one pending `webhook_deliveries` row per enabled endpoint of the
 * institution subscribed to the type, in the same transaction (not for `webhook.*` events).
 */
export async function recordEvent(
  tx: Queryable,
  event: {
    institutionId: string;
    type: string;
    helpRequestId?: string;
    data: Record<string, unknown>;
    occurredAt: Date;
  },
): Promise<RecordedEvent> {
  const payload = { type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data };
  const { rows } = await tx.query<RecordedEvent>(
    `INSERT INTO events (institution_id, type, help_request_id, payload, occurred_at)
     VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING id, seq`,
    [event.institutionId, event.type, event.helpRequestId ?? null, JSON.stringify(payload), event.occurredAt],
  );
  return rows[0];
}
