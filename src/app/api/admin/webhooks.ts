// Admin API: an institution's webhook endpoints, their delivery log, redelivery, replay, test
// events, and delivery metrics. Wire format and rules: docs/webhooks.md.
import { Type } from 'typebox';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, ROTATION_WINDOW_MS } from '../../../domain/webhooks/schedule.ts';
import { attemptOrder, deliveryOrder, EVENT_TYPES, endpointOrder } from '../../../domain/webhooks/service.ts';
import { ApiError } from '../../../errors.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminSecurity,
  CursorQuery,
  DateTime,
  errorResponses,
  Nullable,
  Page,
  pageOf,
  pageReply,
  SlugParams,
  Text,
  Uuid,
} from '../schemas.ts';

const Endpoint = Type.Object({
  id: Uuid(),
  institution_id: Uuid(),
  url: Type.String(),
  description: Nullable(Type.String()),
  event_types: Type.Array(Type.String(), { description: 'Empty: every event type, present and future' }),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(
    Type.String({
      description: 'Why the endpoint is disabled (410 Gone, failing for 5 days, by an administrator)',
    }),
  ),
  disabled_at: Nullable(DateTime()),
  failing_since: Nullable(DateTime('Start of the current unbroken run of failed attempts')),
  previous_secret_expires_at: Nullable(
    DateTime('During a rotation window: until when the previous secret also signs'),
  ),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const EventType = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type' },
);

const urlDescription =
  'https only; the host must not be or resolve to a loopback, private (RFC 1918), link-local, carrier-grade NAT, ' +
  'multicast, unspecified, reserved or metadata address in any spelling (IPv4-mapped IPv6, decimal, octal or hex IPv4). ' +
  'Checked when saved and again on the address actually connected to. A development setting (ALLOW_LOOPBACK_OUTBOUND) allows loopback, and plain http to loopback.';

const EndpointParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Webhook endpoint id') })]);

const Delivery = Type.Object(
  {
    id: Uuid(),
    event_id: Uuid(),
    event_type: Type.String(),
    state: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    last_status: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    last_attempt_at: Nullable(DateTime()),
    next_attempt_at: Nullable(DateTime('When pending: next attempt (or lease expiry while in flight)')),
    created_at: DateTime(),
    completed_at: Nullable(DateTime()),
    attempt_log: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.Integer(),
          attempted_at: DateTime(),
          outcome: Type.String(),
          status_code: Nullable(Type.Integer()),
          duration_ms: Type.Integer(),
          error: Nullable(Type.String()),
        }),
        { description: 'With include_attempts=true: every attempt of this delivery, oldest first' },
      ),
    ),
  },
  { additionalProperties: true },
);

const Attempt = Type.Object({
  id: Type.Integer(),
  delivery_id: Uuid(),
  event_id: Uuid(),
  attempted_at: DateTime(),
  outcome: Type.String({
    description: 'success | http_error | timeout | connection_error | redirect | blocked_address',
  }),
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String()),
});

const scheduleText = `Retries: ${MAX_ATTEMPTS} attempts in all, after ${RETRY_DELAYS_MS.map((ms) => (ms < 60_000 ? `${ms / 1000}s` : ms < 3_600_000 ? `${ms / 60_000}min` : `${ms / 3_600_000}h`)).join(', ')} (each ±20% jitter), about a day.`;

export function adminWebhookRoutes(app: App, services: Services): void {
  const { webhooks } = services;
  const tags = ['webhooks'];
  const security = adminSecurity;
  const base = '/admin/v1/institutions/:slug/webhook-endpoints';

  app.post(
    base,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Add a webhook endpoint',
        description:
          'Creates an endpoint receiving help-request events of this institution, signed with Standard Webhooks ' +
          '(`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`). ' +
          'The response carries the endpoint signing secret (`whsec_…`) once; it cannot be read back. ' +
          `Body sent: {type, timestamp, data: {help_request_id, status, priority, external_ref?, assigned_to, assigned_to_id, origin, actor, version, updated_at}}. ${scheduleText} ` +
          'A 410 answer disables the endpoint; so does an unbroken run of failures for 5 days. Redirects are not followed.',
        params: SlugParams,
        body: Type.Object({
          url: Type.String({
            maxLength: 2048,
            description: urlDescription,
            examples: ['https://hooks.example.edu/ssp'],
          }),
          event_types: Type.Optional(
            Type.Array(EventType, { maxItems: 20, description: 'Omitted or empty: every event type' }),
          ),
          description: Type.Optional(Text({ maxLength: 500 })),
          enabled: Type.Optional(Type.Boolean({ default: true })),
        }),
        response: {
          201: Type.Intersect([
            Endpoint,
            Type.Object({ secret: Type.String({ description: 'whsec_<base64 key>; shown once' }) }),
          ]),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await webhooks.create(institutionOf(request).id, request.body)),
  );

  app.get(
    base,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'List webhook endpoints',
        description: 'Oldest first.',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: Page(Endpoint), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        endpointOrder,
        await webhooks.list(institutionOf(request).id, pageOf(endpointOrder, request.query)),
      ),
  );

  app.get(
    `${base}/:id`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Read a webhook endpoint (never its secret)',
        params: EndpointParams,
        response: { 200: Endpoint, ...errorResponses(401, 404) },
      },
    },
    async (request) => webhooks.get(institutionOf(request).id, request.params.id),
  );

  app.patch(
    `${base}/:id`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Update a webhook endpoint: url, event types, description, enabled',
        description:
          'Fields left out are unchanged. `enabled: true` re-enables a disabled endpoint and clears its reason; ' +
          '`enabled: false` disables it and marks its pending deliveries failed (replayable later).',
        params: EndpointParams,
        body: Type.Object({
          url: Type.Optional(Type.String({ maxLength: 2048, description: urlDescription })),
          event_types: Type.Optional(Type.Array(EventType, { maxItems: 20 })),
          description: Type.Optional(Nullable(Text({ maxLength: 500 }))),
          enabled: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Endpoint, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => webhooks.update(institutionOf(request).id, request.params.id, request.body),
  );

  app.post(
    `${base}/:id/disable`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Disable a webhook endpoint',
        description:
          'Stops deliveries at once; pending deliveries are marked failed and can be replayed after re-enabling. ' +
          'Optional JSON body `{"reason": "<text, at most 300 characters>"}`, shown in `disabled_reason`; the body may be omitted.',
        params: EndpointParams,
        response: { 200: Endpoint, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const reason = (request.body as { reason?: unknown } | null | undefined)?.reason;
      if (reason !== undefined && (typeof reason !== 'string' || reason.length > 300))
        throw new ApiError('invalid_field', {
          field: 'reason',
          detail: 'reason: a string of at most 300 characters',
        });
      return webhooks.disable(institutionOf(request).id, request.params.id, reason);
    },
  );

  app.delete(
    `${base}/:id`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Delete a webhook endpoint and its delivery log',
        params: EndpointParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(institutionOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${base}/:id/rotate-secret`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Rotate the signing secret',
        description: `Returns the new secret once. For ${ROTATION_WINDOW_MS / 3_600_000} hours every delivery carries two signatures in \`webhook-signature\` (new first, then previous), space-separated, so a consumer can switch secrets without losing events. Rotating again within the window drops the older previous secret.`,
        params: EndpointParams,
        response: {
          200: Type.Object({ secret: Type.String(), previous_secret_expires_at: DateTime() }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => webhooks.rotateSecret(institutionOf(request).id, request.params.id),
  );

  app.post(
    `${base}/:id/test`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Send a test event (type webhook.test) to this endpoint',
        description: 'Delivered, signed, logged and retried like any event; no other endpoint receives it.',
        params: EndpointParams,
        response: {
          202: Type.Object({ event_id: Uuid(), delivery_id: Uuid() }),
          ...errorResponses(401, 404, 409),
        },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await webhooks.sendTest(institutionOf(request).id, request.params.id)),
  );

  app.get(
    `${base}/:id/deliveries`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Delivery log of an endpoint: one row per event, newest first',
        description:
          "Page with next_cursor (keep the same state filter). include_attempts=true adds each delivery's " +
          'attempts (attempt_log), so a page of the log shows every attempt of the deliveries on it, however ' +
          'old, in the same request.',
        params: EndpointParams,
        querystring: Type.Intersect([
          CursorQuery,
          Type.Object({
            include_attempts: Type.Optional(
              Type.Boolean({
                description: 'true: each delivery carries its attempts (attempt_log), oldest first',
              }),
            ),
            state: Type.Optional(
              Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
            ),
          }),
        ]),
        response: { 200: Page(Delivery), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        deliveryOrder,
        await webhooks.deliveries(institutionOf(request).id, request.params.id, {
          ...pageOf(deliveryOrder, request.query),
          state: request.query.state,
          withAttempts: request.query.include_attempts === true,
        }),
      ),
  );

  app.get(
    `${base}/:id/attempts`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Attempt log of an endpoint: time, status code, duration, error; newest first',
        params: EndpointParams,
        querystring: CursorQuery,
        response: { 200: Page(Attempt), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        attemptOrder,
        await webhooks.attempts(
          institutionOf(request).id,
          request.params.id,
          pageOf(attemptOrder, request.query),
        ),
      ),
  );

  app.post(
    `${base}/:id/redeliver`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Deliver one event to this endpoint again, now',
        description:
          'Works whatever the earlier outcome was, and for an event the endpoint never received. The attempt count restarts; the log is kept. The `webhook-id` is the same event id, so a consumer that already processed it can drop it.',
        params: EndpointParams,
        body: Type.Object({ event_id: Uuid() }),
        response: { 202: Type.Object({ delivery_id: Uuid() }), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await webhooks.redeliver(institutionOf(request).id, request.params.id, request.body.event_id)),
  );

  app.post(
    `${base}/:id/replay`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Replay every failed delivery of this endpoint since a time',
        description:
          'Puts back in the queue every delivery of this endpoint in state `failed` (retries exhausted, or failed when the endpoint was disabled) whose event was recorded at or after `since`.',
        params: EndpointParams,
        body: Type.Object({
          since: Type.String({ format: 'date-time', examples: ['2026-11-20T00:00:00Z'] }),
        }),
        response: { 202: Type.Object({ requeued: Type.Integer() }), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await webhooks.replayFailed(
            institutionOf(request).id,
            request.params.id,
            new Date(request.body.since),
          ),
        ),
  );

  app.get(
    '/admin/v1/institutions/:slug/events/:event_id/deliveries',
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'One event and its deliveries to each endpoint, with every attempt',
        params: Type.Intersect([SlugParams, Type.Object({ event_id: Uuid() })]),
        response: {
          200: Type.Object({
            event: Type.Record(Type.String(), Type.Unknown()),
            deliveries: Type.Array(Type.Record(Type.String(), Type.Unknown())),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => webhooks.eventDeliveries(institutionOf(request).id, request.params.event_id),
  );
}
