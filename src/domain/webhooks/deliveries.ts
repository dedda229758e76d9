// What an administrator does with an endpoint's deliveries: send it a test event, deliver one
// event again, replay the failed deliveries since a time, and read its delivery and attempt logs
// and one event's deliveries. The deliveries themselves are made by the worker (./delivery/);
// every change of delivery state made here is written by ./delivery/state.ts.
import type { Queryable } from '../../db/db.ts';
import type { KeysetPage, Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { recordEvent } from '../events/record.ts';
import { RESPONSE_BODY_KEPT } from './delivery/attempt.ts';
import { enqueueDelivery, replayFailedDeliveries } from './delivery/state.ts';
import { getEndpoint, type WebhooksDeps } from './endpoints.ts';
import {
  type DeliveryQuery,
  eventExists,
  selectAttempt,
  selectAttemptPage,
  selectDeliveryPage,
  selectEvent,
  selectEventDeliveries,
} from './queries.ts';
import {
  type EventDeliveries,
  TEST_EVENT_TYPE,
  type WebhookAttempt,
  type WebhookAttemptDetail,
  type WebhookDelivery,
} from './schemas.ts';

type Deps = Pick<WebhooksDeps, 'db' | 'clock'>;

const noSuchEvent = () => new ApiError('not_found', { detail: 'no such event' });

/** The endpoint, if it is enabled: a disabled one is sent nothing, so it is 409 `endpoint_disabled`. */
async function enabledEndpoint(deps: Deps, institutionId: string, id: string, doing: string) {
  const endpoint = await getEndpoint(deps, institutionId, id);
  if (!endpoint.enabled)
    throw new ApiError('endpoint_disabled', { detail: `enable the endpoint before ${doing}` });
  return endpoint;
}

/** Sends a `webhook.test` event to this endpoint only (delivered like any event). */
export async function sendTestEvent(
  deps: Deps,
  institutionId: string,
  id: string,
): Promise<{ event_id: string; delivery_id: string }> {
  await enabledEndpoint(deps, institutionId, id, 'sending a test event');
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
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
}

/**
 * Delivers one event to this endpoint again, now, whatever happened before (a new delivery is
 * created when the endpoint never had one for it). The attempt history is kept.
 */
export async function redeliverEvent(
  deps: Deps,
  institutionId: string,
  id: string,
  eventId: string,
): Promise<{ delivery_id: string }> {
  await enabledEndpoint(deps, institutionId, id, 'redelivering');
  if (!uuidPattern.test(eventId) || !(await eventExists(deps.db, institutionId, eventId)))
    throw noSuchEvent();
  // In a transaction, as every write that makes a delivery due: the embedded database's idle
  // worker polls when a transaction commits (Db.commits), so it goes out at once.
  const delivery = await deps.db.transaction((tx) =>
    enqueueDelivery(tx, { institutionId, endpointId: id, eventId }, deps.clock.now()),
  );
  return { delivery_id: delivery.id };
}

/** Puts every failed (given up) delivery of this endpoint whose event occurred at or after `since` back in the queue. */
export async function replayFailed(
  deps: Deps,
  institutionId: string,
  id: string,
  since: Date,
): Promise<{ requeued: number }> {
  await enabledEndpoint(deps, institutionId, id, 'replaying');
  // In a transaction, so that the embedded database's idle worker polls at once (see above).
  const requeued = await deps.db.transaction((tx) =>
    replayFailedDeliveries(tx, { institutionId, id }, since, deps.clock.now()),
  );
  return { requeued };
}

/** Deliveries of one endpoint, newest first; optionally only one state, and with each delivery's attempts. */
export async function listDeliveries(
  deps: Deps,
  institutionId: string,
  id: string,
  filter: DeliveryQuery,
): Promise<Paged<WebhookDelivery>> {
  await getEndpoint(deps, institutionId, id);
  return selectDeliveryPage(deps.db, institutionId, id, filter);
}

/** Attempt log of one endpoint, newest first. */
export async function listAttempts(
  deps: Deps,
  institutionId: string,
  id: string,
  page: KeysetPage,
): Promise<Paged<WebhookAttempt>> {
  await getEndpoint(deps, institutionId, id);
  return selectAttemptPage(deps.db, institutionId, id, page);
}

const attemptNotFound = () =>
  new ApiError('attempt_not_found', { detail: 'no attempt with this id for this endpoint' });

/** One attempt of an endpoint with the request sent and the response (first 4 KiB of its body), or 404. */
export async function getAttempt(
  deps: Deps,
  institutionId: string,
  id: string,
  attemptId: string,
): Promise<WebhookAttemptDetail> {
  await getEndpoint(deps, institutionId, id);
  if (!/^[1-9][0-9]{0,17}$/.test(attemptId)) throw attemptNotFound();
  const row = await selectAttempt(deps.db, institutionId, id, attemptId);
  if (!row) throw attemptNotFound();
  const { url, request_headers, request_body, response_headers, response_body, ...attempt } = row;
  return {
    ...attempt,
    request: { method: 'POST', url, headers: request_headers, body: request_body },
    response: response_headers
      ? {
          status: attempt.status_code,
          headers: response_headers,
          body: response_body ?? '',
          truncated: Buffer.byteLength(response_body ?? '') >= RESPONSE_BODY_KEPT,
        }
      : null,
  };
}

/** One event, and for each endpoint it went to, the delivery and every attempt. */
export async function eventDeliveries(
  db: Queryable,
  institutionId: string,
  eventId: string,
): Promise<EventDeliveries> {
  const event = uuidPattern.test(eventId) ? await selectEvent(db, institutionId, eventId) : undefined;
  if (!event) throw noSuchEvent();
  return { event, deliveries: await selectEventDeliveries(db, institutionId, eventId) };
}
