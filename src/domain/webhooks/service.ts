// Webhook endpoints bound to their dependencies: the functions of ./endpoints.ts,
// ./deliveries.ts and ./metrics.ts under the names every caller uses (`services.webhooks.<name>`):
// the admin API, the console, the CLI and the benchmarks alike. Nothing is decided here.
// Delivery itself is the worker's (./delivery/).
import type { Queryable } from '../../db/db.ts';
import type { KeysetPage } from '../../db/keyset.ts';
import { systemResolver } from '../../lib/outbound-url.ts';
import {
  eventDeliveries,
  getAttempt,
  listAttempts,
  listDeliveries,
  redeliverEvent,
  replayFailed,
  sendTestEvent,
} from './deliveries.ts';
import {
  createEndpoint,
  disableEndpoint,
  type EndpointInput,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
  revealSecret,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhooksDeps,
} from './endpoints.ts';
import { webhookMetrics } from './metrics.ts';
import type { DeliveryQuery } from './queries.ts';

export function createWebhooksService(options: Omit<WebhooksDeps, 'resolve'> & Partial<WebhooksDeps>) {
  const deps: WebhooksDeps = { ...options, resolve: options.resolve ?? systemResolver };
  const { db, clock } = deps;
  return {
    /** One endpoint (never its secret), or 404. */
    get: (institutionId: string, id: string, q?: Queryable) => getEndpoint(deps, institutionId, id, q),
    /** Adds an endpoint; the answer carries its signing secret, this once. */
    create: (institutionId: string, input: EndpointInput) => createEndpoint(deps, institutionId, input),
    /** A page of the institution's endpoints, oldest first. */
    list: (institutionId: string, page: KeysetPage) => listEndpoints(deps, institutionId, page),
    /** Changes the settings given; enabling or disabling also changes the pending deliveries. */
    update: (institutionId: string, id: string, input: EndpointInput) =>
      updateEndpoint(deps, institutionId, id, input),
    /** An administrator disables an endpoint, with an optional reason. */
    disable: (institutionId: string, id: string, reason?: unknown) =>
      disableEndpoint(deps, institutionId, id, reason),
    /** Deletes an endpoint with its delivery log. */
    remove: (institutionId: string, id: string) => removeEndpoint(db, institutionId, id),
    /** New secret now; the previous one keeps signing beside it for the rotation window. */
    rotateSecret: (institutionId: string, id: string) => rotateEndpointSecret(deps, institutionId, id),
    /** The current signing secret, decrypted (audited by the caller's route). */
    revealSecret: (institutionId: string, id: string) => revealSecret(deps, institutionId, id),
    /** Sends a `webhook.test` event to this endpoint only. */
    sendTest: (institutionId: string, id: string) => sendTestEvent(deps, institutionId, id),
    /** Delivers one event to this endpoint again, now. */
    redeliver: (institutionId: string, id: string, eventId: string) =>
      redeliverEvent(deps, institutionId, id, eventId),
    /** Puts the endpoint's failed deliveries of events since a time back in the queue. */
    replayFailed: (institutionId: string, id: string, since: Date) =>
      replayFailed(deps, institutionId, id, since),
    /** The endpoint's deliveries, newest first, optionally of one state and with their attempts. */
    deliveries: (institutionId: string, id: string, filter: DeliveryQuery) =>
      listDeliveries(deps, institutionId, id, filter),
    /** The endpoint's attempts, newest first. */
    attempts: (institutionId: string, id: string, page: KeysetPage) =>
      listAttempts(deps, institutionId, id, page),
    /** One attempt with the request sent and the response received, or 404. */
    attempt: (institutionId: string, id: string, attemptId: string) =>
      getAttempt(deps, institutionId, id, attemptId),
    /** One event, and for each endpoint it went to, the delivery and every attempt. */
    eventDeliveries: (institutionId: string, eventId: string) => eventDeliveries(db, institutionId, eventId),
    /** Queue depth and delivery outcomes over every institution (operator view). */
    metrics: () => webhookMetrics(db, clock),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
