// Recording an event: written in the same transaction as the change it announces, so the
// event log is a transactional outbox. Webhook delivery reads events from here.
import type { Queryable } from '../../db/db.ts';
import { insertEvents } from './queries.ts';

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
  /** The assigned person's name at the time of the event; null when unassigned. */
  assigned_to: string | null;
  /** The assigned person's id; null when unassigned (or assigned to a name from before ids). */
  assigned_to_id: string | null;
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

export interface NewEvent {
  institutionId: string;
  type: string;
  helpRequestId?: string;
  data: Record<string, unknown>;
  occurredAt: Date;
}

/**
 * Appends events in the given order, in one statement whatever their number, and returns
 * their ids in that order. This is the only place the webhook body ({type, timestamp, data})
 * is built, and the only INSERT into `events`. Must be called with the transaction that makes
 * the change.
 *
 * Inserting an event also creates rows elsewhere: the `events_webhook_fan_out` trigger
 * (migration 0005) adds one pending `webhook_deliveries` row per enabled endpoint of the
 * institution subscribed to the type, in the same transaction. Nothing in TypeScript writes
 * those rows for a new event.
 */
export async function recordEvents(tx: Queryable, events: NewEvent[]): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const rows = events.map((event, ord) => ({
    ord,
    institution_id: event.institutionId,
    type: event.type,
    help_request_id: event.helpRequestId ?? null,
    payload: { type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data },
    occurred_at: event.occurredAt.toISOString(),
  }));
  return insertEvents(tx, JSON.stringify(rows));
}

/** Appends one event (see recordEvents). */
export async function recordEvent(tx: Queryable, event: NewEvent): Promise<RecordedEvent> {
  const [recorded] = await recordEvents(tx, [event]);
  return recorded;
}
