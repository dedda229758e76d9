// Admin API: the deliveries of a webhook endpoint: a test event, the delivery and attempt logs,
// redelivery of one event and replay of failed deliveries. Wire format and rules: docs/webhooks.md.
import { Type } from 'typebox';
import {
  getAttempt,
  listAttempts,
  listDeliveries,
  redeliverEvent,
  replayFailed,
  sendTestEvent,
} from '../../../domain/webhooks/deliveries.ts';
import { attemptOrder, deliveryOrder } from '../../../domain/webhooks/orders.ts';
import {
  DeliveryFilters,
  RedeliverBody,
  Redelivery,
  ReplayBody,
  Replayed,
  TestEventQueued,
  WebhookAttempt,
  WebhookAttemptDetail,
  WebhookDelivery,
} from '../../../domain/webhooks/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminRoute,
  filteredListingSchema,
  listingReply,
  listingSchema,
  replyWith,
} from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';
import { EndpointParams, endpointsPath, webhookTags } from './webhook-endpoints.ts';

const tags = webhookTags;
const base = endpointsPath;

export function adminWebhookDeliveryRoutes(app: App): void {
  testAndLogRoutes(app);
  attemptAndRequeueRoutes(app);
}

/** A test event, and the endpoint's delivery and attempt logs. */
function testAndLogRoutes(app: App): void {
  app.post(
    `${base}/:id/test`,
    adminRoute('integrations', tags, {
      summary: 'Send a test event (type webhook.test) to this endpoint',
      description: 'Delivered, signed, logged and retried like any event; no other endpoint receives it.',
      params: EndpointParams,
      response: { 202: TestEventQueued, ...errorResponses(401, 404, 409) },
    }),
    async (request, reply) =>
      reply.status(202).send(await sendTestEvent(request.deps, institutionOf(request).id, request.params.id)),
  );

  app.get(
    `${base}/:id/deliveries`,
    adminRoute('integrations', tags, {
      summary: 'Delivery log of an endpoint: one row per event, newest first',
      description:
        "Page with next_cursor (keep the same state filter). include_attempts=true adds each delivery's " +
        'attempts (attempt_log), so a page of the log shows every attempt of the deliveries on it, however ' +
        'old, in the same request.',
      params: EndpointParams,
      ...filteredListingSchema(WebhookDelivery, DeliveryFilters),
    }),
    async (request) =>
      listingReply(deliveryOrder, request.query, (page) =>
        listDeliveries(request.deps, institutionOf(request).id, request.params.id, {
          ...page,
          state: request.query.state,
          withAttempts: request.query.include_attempts === true,
        }),
      ),
  );

  app.get(
    `${base}/:id/attempts`,
    adminRoute('integrations', tags, {
      summary: 'Attempt log of an endpoint: time, status code, duration, error; newest first',
      params: EndpointParams,
      ...listingSchema(WebhookAttempt),
    }),
    async (request) =>
      listingReply(attemptOrder, request.query, (page) =>
        listAttempts(request.deps, institutionOf(request).id, request.params.id, page),
      ),
  );
}

/** One attempt in full, redelivering one event, and replaying the failed deliveries. */
function attemptAndRequeueRoutes(app: App): void {
  app.get(
    `${base}/:id/attempts/:attempt_id`,
    adminRoute('integrations', tags, {
      summary:
        'One attempt: the request sent (headers, body) and the response (status, headers, first 4 KiB of body)',
      description:
        'The request body is the event payload, the same bytes on every attempt. Attempts recorded before ' +
        'requests and responses were kept have request.headers and response null.',
      params: Type.Intersect([
        EndpointParams,
        Type.Object({
          attempt_id: Type.String({ maxLength: 40, description: 'The attempt id (an integer)' }),
        }),
      ]),
      response: { 200: WebhookAttemptDetail, ...errorResponses(401, 404) },
    }),
    async (request) =>
      getAttempt(request.deps, institutionOf(request).id, request.params.id, request.params.attempt_id),
  );

  app.post(
    `${base}/:id/redeliver`,
    adminRoute('integrations', tags, {
      summary: 'Deliver one event to this endpoint again, now',
      description:
        'Works whatever the earlier outcome was, and for an event the endpoint never received. The attempt count restarts; the log is kept. The `webhook-id` is the same event id, so a consumer that already processed it can drop it.',
      params: EndpointParams,
      body: RedeliverBody,
      response: { 202: Redelivery, ...errorResponses(400, 401, 404, 409) },
    }),
    async (request, reply) =>
      replyWith(
        reply,
        202,
        redeliverEvent(request.deps, institutionOf(request).id, request.params.id, request.body.event_id),
      ),
  );

  app.post(
    `${base}/:id/replay`,
    adminRoute('integrations', tags, {
      summary: 'Replay every failed delivery of this endpoint since a time',
      description:
        'Puts back in the queue every delivery of this endpoint in state `failed` (retries exhausted, or failed when the endpoint was disabled) whose event was recorded at or after `since`.',
      params: EndpointParams,
      body: ReplayBody,
      response: { 202: Replayed, ...errorResponses(400, 401, 404, 409) },
    }),
    async (request, reply) =>
      replyWith(
        reply,
        202,
        replayFailed(
          request.deps,
          institutionOf(request).id,
          request.params.id,
          new Date(request.body.since),
        ),
      ),
  );
}
