// Admin API: an institution's webhook endpoints: adding, listing, reading, changing, disabling,
// deleting, and rotating the signing secret. Their deliveries: ./webhook-deliveries.ts. Wire
// format and rules: docs/webhooks.md.
import { Type } from 'typebox';
import {
  createEndpoint,
  disableEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
  revealSecret,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../../domain/webhooks/endpoints.ts';
import { endpointOrder } from '../../../domain/webhooks/orders.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, ROTATION_WINDOW_MS } from '../../../domain/webhooks/schedule.ts';
import {
  EndpointChangeBody,
  NewEndpointBody,
  NewWebhookEndpoint,
  RotatedSecret,
  WebhookEndpoint,
} from '../../../domain/webhooks/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute, listingReply, listingSchema } from '../route-helpers.ts';
import { errorResponses, ItemParams } from '../schemas.ts';

export const webhookTags = ['webhooks'];
export const endpointsPath = '/admin/v1/institutions/:slug/webhook-endpoints';
export const EndpointParams = ItemParams('Webhook endpoint id');

const delay = (ms: number) =>
  ms < 60_000 ? `${ms / 1000}s` : ms < 3_600_000 ? `${ms / 60_000}min` : `${ms / 3_600_000}h`;
const scheduleText = `Retries: ${MAX_ATTEMPTS} attempts in all, after ${RETRY_DELAYS_MS.map(delay).join(', ')} (each ±20% jitter), about a day.`;

export function adminWebhookEndpointRoutes(app: App): void {
  endpointRoutes(app);
  endpointSettingRoutes(app);
}

/** Adding, listing, reading and deleting endpoints. */
function endpointRoutes(app: App): void {
  const tags = webhookTags;
  const base = endpointsPath;

  app.post(
    base,
    institutionRoute('integrations', tags, {
      summary: 'Add a webhook endpoint',
      description:
        'Creates an endpoint receiving help-request events of this institution, signed with Standard Webhooks ' +
        '(`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`). ' +
        'The response carries the endpoint signing secret (`whsec_…`) once; it cannot be read back. ' +
        `Body sent: {type, timestamp, data: {help_request_id, status, priority, external_ref?, assigned_to, assigned_to_id, origin, actor, version, updated_at}}. ${scheduleText} ` +
        'A 410 answer disables the endpoint; so does an unbroken run of failures for 5 days. Redirects are not followed.',
      body: NewEndpointBody,
      response: { 201: NewWebhookEndpoint, ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) =>
      reply.status(201).send(await createEndpoint(request.deps, institutionOf(request).id, request.body)),
  );

  app.get(
    base,
    institutionRoute('integrations', tags, {
      summary: 'List webhook endpoints',
      description: 'Oldest first.',
      ...listingSchema(WebhookEndpoint),
    }),
    async (request) =>
      listingReply(endpointOrder, request.query, (page) =>
        listEndpoints(request.deps, institutionOf(request).id, page),
      ),
  );

  app.get(
    `${base}/:id`,
    adminRoute('integrations', tags, {
      summary: 'Read a webhook endpoint (never its secret)',
      params: EndpointParams,
      response: { 200: WebhookEndpoint, ...errorResponses(401, 404) },
    }),
    async (request) => getEndpoint(request.deps, institutionOf(request).id, request.params.id),
  );

  app.delete(
    `${base}/:id`,
    adminRoute('integrations', tags, {
      summary: 'Delete a webhook endpoint and its delivery log',
      params: EndpointParams,
      response: { 204: Type.Null(), ...errorResponses(401, 404) },
    }),
    async (request, reply) => {
      await removeEndpoint(request.deps.db, institutionOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
}

/** Changing an endpoint's settings, disabling it, and rotating its signing secret. */
function endpointSettingRoutes(app: App): void {
  const tags = webhookTags;
  const base = endpointsPath;

  app.patch(
    `${base}/:id`,
    adminRoute('integrations', tags, {
      summary: 'Update a webhook endpoint: url, event types, description, enabled',
      description:
        'Fields left out are unchanged. `enabled: true` re-enables a disabled endpoint and clears its reason; ' +
        '`enabled: false` disables it and marks its pending deliveries failed (replayable later).',
      params: EndpointParams,
      body: EndpointChangeBody,
      response: { 200: WebhookEndpoint, ...errorResponses(400, 401, 404) },
    }),
    async (request) =>
      updateEndpoint(request.deps, institutionOf(request).id, request.params.id, request.body),
  );

  app.post(
    `${base}/:id/disable`,
    adminRoute('integrations', tags, {
      summary: 'Disable a webhook endpoint',
      description:
        'Stops deliveries at once; pending deliveries are marked failed and can be replayed after re-enabling. ' +
        'Optional JSON body `{"reason": "<text, at most 300 characters>"}`, shown in `disabled_reason`; the body may be omitted.',
      params: EndpointParams,
      // The reason is checked by the domain (its own message); declared so it is a known field.
      body: Type.Optional(Type.Object({ reason: Type.Optional(Type.Unknown()) })),
      response: { 200: WebhookEndpoint, ...errorResponses(400, 401, 404) },
    }),
    async (request) =>
      disableEndpoint(
        request.deps,
        institutionOf(request).id,
        request.params.id,
        (request.body as { reason?: unknown } | null | undefined)?.reason,
      ),
  );

  app.post(
    `${base}/:id/rotate-secret`,
    adminRoute('integrations', tags, {
      summary: 'Rotate the signing secret',
      description: `Returns the new secret once. For ${ROTATION_WINDOW_MS / 3_600_000} hours every delivery carries two signatures in \`webhook-signature\` (new first, then previous), space-separated, so a consumer can switch secrets without losing events. Rotating again within the window drops the older previous secret.`,
      params: EndpointParams,
      response: { 200: RotatedSecret, ...errorResponses(401, 404) },
    }),
    async (request) => rotateEndpointSecret(request.deps, institutionOf(request).id, request.params.id),
  );

  app.post(
    `${base}/:id/reveal-secret`,
    adminRoute('integrations', tags, {
      summary: 'Show the current signing secret again (recorded in the admin audit)',
      description:
        'The signing secret is kept encrypted because the service signs with it, so a holder of Manage ' +
        'integrations may read it again (to configure a second receiver, say). Each reveal is a POST and is ' +
        'recorded in the admin audit with the person and session. During a rotation window the previous ' +
        'secret is not shown.',
      params: EndpointParams,
      response: {
        200: Type.Object({ secret: Type.String({ description: 'whsec_<base64 key>' }) }),
        ...errorResponses(401, 403, 404),
      },
    }),
    async (request) => revealSecret(request.deps, institutionOf(request).id, request.params.id),
  );
}
