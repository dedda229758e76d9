// The shapes of webhook endpoints, defined once: the event types, an endpoint, its delivery log
// and attempt log, one event's deliveries, and what adding or changing an endpoint takes. The
// admin API uses them as its request and response schemas and the console's pages type their
// view models and check their forms with them, so the two cannot drift apart.
import { type Static, Type } from 'typebox';
import { DateTime, DisplayName, Nullable, Uuid } from '../../lib/schema.ts';

export const EVENT_TYPES = [
  'help_request.created',
  'help_request.crisis',
  'help_request.updated',
  'help_request.reply',
  'help_request.student_message',
  // An erased student (docs/privacy.md): receivers erase what they hold about these requests too.
  'student.erased',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/**
 * Types that carry a person's words (a reply to the student, the student's answer): an endpoint
 * receives them only when it lists them. An endpoint subscribed to every type (an empty list)
 * does not, so it never starts receiving a student's words without someone choosing it
 * (docs/versioning.md; the fan-out trigger of migration 0080 holds the same list).
 */
export const OPT_IN_EVENT_TYPES: readonly EventType[] = [
  'help_request.reply',
  'help_request.student_message',
];
/** The type of a test event: sent to one endpoint on request, never fanned out. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type' },
);

/** The longest description of an endpoint. */
export const MAX_DESCRIPTION = 500;
/** The longest reason given when disabling an endpoint by hand. */
export const MAX_DISABLE_REASON = 300;

export const WebhookEndpoint = Type.Object({
  id: Uuid(),
  institution_id: Uuid(),
  url: Type.String(),
  description: Nullable(Type.String()),
  event_types: Type.Array(Type.String(), {
    description:
      'Empty: every event type, present and future, except those carrying words (help_request.reply, ' +
      'help_request.student_message), which reach only endpoints that list them',
  }),
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
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** A new endpoint, with its signing secret (shown this once). */
export const NewWebhookEndpoint = Type.Intersect([
  WebhookEndpoint,
  Type.Object({ secret: Type.String({ description: 'whsec_<base64 key>; shown once' }) }),
]);
export type NewWebhookEndpoint = Static<typeof NewWebhookEndpoint>;

export const DeliveryState = Type.Union([
  Type.Literal('pending'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);
export type DeliveryState = Static<typeof DeliveryState>;

/** One attempt of a delivery, as the delivery log lists it. */
export const DeliveryAttempt = Type.Object({
  id: Type.Integer(),
  attempted_at: DateTime(),
  outcome: Type.String(),
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String()),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

export const WebhookDelivery = Type.Object(
  {
    id: Uuid(),
    event_id: Uuid(),
    event_type: Type.String(),
    state: DeliveryState,
    attempts: Type.Integer(),
    last_status: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    last_attempt_at: Nullable(DateTime()),
    next_attempt_at: Nullable(DateTime('When pending: next attempt (or lease expiry while in flight)')),
    created_at: DateTime(),
    completed_at: Nullable(DateTime()),
    attempt_log: Type.Optional(
      Type.Array(DeliveryAttempt, {
        description: 'With include_attempts=true: every attempt of this delivery, oldest first',
      }),
    ),
  },
  { additionalProperties: true },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

/** One attempt, as the attempt log of an endpoint lists it. */
export const WebhookAttempt = Type.Object({
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
export type WebhookAttempt = Static<typeof WebhookAttempt>;

const Headers = Type.Record(Type.String(), Type.String());

/** One attempt with what was sent and what came back, as a webhook portal shows it. */
export const WebhookAttemptDetail = Type.Object({
  ...WebhookAttempt.properties,
  request: Type.Object(
    {
      method: Type.Literal('POST'),
      url: Type.String({ description: "The endpoint's URL (as it is now)" }),
      headers: Nullable(Headers),
      body: Type.String({ description: "The event's payload, the exact bytes every attempt sends" }),
    },
    { description: 'The request sent; headers are null for attempts recorded before they were kept' },
  ),
  response: Nullable(
    Type.Object({
      status: Nullable(Type.Integer()),
      headers: Headers,
      body: Type.String({ description: 'The first 4 KiB of the response body, as text' }),
      truncated: Type.Boolean({ description: 'true when the body was longer than what is kept' }),
    }),
  ),
});
export type WebhookAttemptDetail = Static<typeof WebhookAttemptDetail>;

/** One event, and its delivery to each endpoint with every attempt. */
export const EventDeliveries = Type.Object({
  event: Type.Record(Type.String(), Type.Unknown()),
  deliveries: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});
export type EventDeliveries = Static<typeof EventDeliveries>;

export const RotatedSecret = Type.Object({ secret: Type.String(), previous_secret_expires_at: DateTime() });
export type RotatedSecret = Static<typeof RotatedSecret>;

export const TestEventQueued = Type.Object({ event_id: Uuid(), delivery_id: Uuid() });
export const Redelivery = Type.Object({ delivery_id: Uuid() });
export const Replayed = Type.Object({ requeued: Type.Integer() });

// What adding or changing an endpoint takes (the admin API's bodies; the console checks its forms
// with them).

export const urlDescription =
  'https only; the host must not be or resolve to a loopback, private (RFC 1918), link-local, carrier-grade NAT, ' +
  'multicast, unspecified, reserved or metadata address in any spelling (IPv4-mapped IPv6, decimal, octal or hex IPv4). ' +
  'Checked when saved and again on the address actually connected to. A development setting (ALLOW_LOOPBACK_OUTBOUND) allows loopback, and plain http to loopback.';

export const NewEndpointBody = Type.Object({
  url: Type.String({
    maxLength: 2048,
    description: urlDescription,
    examples: ['https://hooks.example.edu/ssp'],
  }),
  event_types: Type.Optional(
    Type.Array(EventTypeSchema, {
      maxItems: 20,
      description:
        'Omitted or empty: every event type except help_request.reply and help_request.student_message ' +
        '(they carry words, and must be listed)',
    }),
  ),
  description: Type.Optional(DisplayName({ maxLength: MAX_DESCRIPTION, nonBlank: false })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
});
export type NewEndpointBody = Static<typeof NewEndpointBody>;

export const EndpointChangeBody = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 2048, description: urlDescription })),
  event_types: Type.Optional(Type.Array(EventTypeSchema, { maxItems: 20 })),
  description: Type.Optional(Nullable(DisplayName({ maxLength: MAX_DESCRIPTION, nonBlank: false }))),
  enabled: Type.Optional(Type.Boolean()),
});
export type EndpointChangeBody = Static<typeof EndpointChangeBody>;

export const RedeliverBody = Type.Object({ event_id: Uuid() });

export const ReplayBody = Type.Object({
  since: Type.String({ format: 'date-time', examples: ['2026-11-20T00:00:00Z'] }),
});

/** The filters of an endpoint's delivery log. */
export const DeliveryFilters = Type.Object({
  include_attempts: Type.Optional(
    Type.Boolean({
      description: 'true: each delivery carries its attempts (attempt_log), oldest first',
    }),
  ),
  state: Type.Optional(DeliveryState),
});
