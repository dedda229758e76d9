// Webhooks (Manage integrations): the endpoints, adding one (the URL guard's refusal next to the
// URL field; the signing secret shown once), event types, disable and enable, rotating the
// signing secret (confirmed; the new secret shown once with the end of the overlap window), a
// test event, and an endpoint's delivery log (paged, each delivery with all its attempts),
// redelivery of one event and replay of failed deliveries since a time (confirmed).
//
// Every page calls the webhook domain's functions with the request's context, as the admin API
// does: the same access (`integrations`), the same rules, the forms checked against the API's
// schemas; a refusal is shown next to the field it names.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  listDeliveries,
  redeliverEvent,
  replayFailed,
  sendTestEvent,
} from '../../../domain/webhooks/deliveries.ts';
import {
  createEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../../domain/webhooks/endpoints.ts';
import { deliveryOrder } from '../../../domain/webhooks/orders.ts';
import {
  EndpointChangeBody,
  NewEndpointBody,
  RedeliverBody,
  ReplayBody,
} from '../../../domain/webhooks/schemas.ts';
import type { App } from '../../types.ts';
import { checkForm, checkFormWithUrls } from '../form-check.ts';
import { ctx, ItemPageParams, institutionOf, PageParams } from './context.ts';
import { checkErrors, confirmed, list, refusalOf, text } from './forms.ts';
import { timeIn } from './institution-time.ts';
import { CursorQuery, readListing } from './listing.ts';
import {
  endpointsView,
  endpointView,
  newEndpointInput,
  newEndpointValues,
  SHOW_AGAIN,
  sinceOf,
} from './webhooks-view.ts';

const listSchema = { hide: true, params: PageParams };
const schema = { hide: true, params: ItemPageParams };
const access = { access: 'integrations' as const };

/** The longest list of endpoints the page shows (an institution has a handful). */
const MAX_ENDPOINTS_SHOWN = 200;

const newEndpointFields = {
  url: { label: 'URL', required: 'Enter the URL that receives the events' },
  description: { label: 'Description' },
  event_types: { label: 'Event types', hint: 'Choose among the event types listed' },
};

type PageData = Record<string, unknown>;

function pages() {
  const paths = (request: FastifyRequest, id?: string) => {
    const page = `/console/${institutionOf(request).slug}/webhooks`;
    return id ? `${page}/${id}` : page;
  };

  /** The endpoints and the add form (with the values and messages of a refused post). */
  const endpoints = async (request: FastifyRequest, extra: PageData = {}, status = 200) => {
    const listing = await listEndpoints(request.deps, institutionOf(request).id, {
      limit: MAX_ENDPOINTS_SHOWN,
    });
    return ctx(request).render('console/webhooks.eta', { ...endpointsView(listing.items), ...extra }, status);
  };

  /** An endpoint with a page of its delivery log (by the URL's cursor; each delivery with its attempts). */
  const endpoint = async (request: FastifyRequest, extra: PageData = {}, status = 200) => {
    const institutionId = institutionOf(request).id;
    const { id } = request.params as { id: string };
    const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor;
    // The endpoint first: an id that names none (or is no id at all) is the page's 404, whatever
    // the delivery log's read would have said of it.
    const found = await getEndpoint(request.deps, institutionId, id);
    const log = await readListing(
      deliveryOrder,
      { cursor: typeof cursor === 'string' ? cursor : undefined, size: 50 },
      (page) => listDeliveries(request.deps, institutionId, id, { ...page, withAttempts: true }),
    );
    return ctx(request).render('console/webhook.eta', { ...endpointView(found, log), ...extra }, status);
  };

  /**
   * Runs an endpoint's action: on success, back to the endpoint's page with its notice; a refusal
   * is shown on the endpoint's page (next to the field it names, of `fields`).
   */
  const act = async (
    request: FastifyRequest,
    reply: FastifyReply,
    run: () => Promise<unknown>,
    done: string,
    refusal: { fields?: string[]; shown?: (refused: ReturnType<typeof refusalOf>) => PageData } = {},
  ) => {
    try {
      await run();
    } catch (error) {
      const refused = refusalOf(error, refusal.fields ?? []);
      return endpoint(request, refusal.shown?.(refused) ?? refused, refused.status);
    }
    return reply.redirect(`${paths(request, (request.params as { id: string }).id)}?done=${done}`, 303);
  };

  return { paths, endpoints, endpoint, act };
}

export function webhookRoutes(app: App): void {
  const p = pages();
  endpointListRoutes(app, p);
  endpointRoutes(app, p);
  deliveryRoutes(app, p);
}

type Pages = ReturnType<typeof pages>;

/** The endpoints, and adding one. */
function endpointListRoutes(app: App, { paths, endpoints }: Pages): void {
  app.get('/:slug/webhooks', { config: access, schema: listSchema }, async (request) => endpoints(request));

  app.post(
    '/:slug/webhooks',
    { config: { ...access, formFields: ['url', 'description', 'event_types'] }, schema: listSchema },
    async (request) => {
      const values = newEndpointValues(request.body);
      const input = newEndpointInput(values);
      const checked = checkFormWithUrls(
        NewEndpointBody,
        input,
        newEndpointFields,
        { url: input.url },
        request.deps.policy,
      );
      if (!checked.ok) return endpoints(request, { values, ...checkErrors(checked.errors) }, 400);
      let created: Awaited<ReturnType<typeof createEndpoint>>;
      try {
        created = await createEndpoint(request.deps, institutionOf(request).id, checked.value);
      } catch (error) {
        const refused = refusalOf(error, Object.keys(newEndpointFields));
        return endpoints(request, { values, ...refused }, refused.status);
      }
      return ctx(request).render('console/secret-shown.eta', {
        title: 'New webhook endpoint',
        which: 'signing secret',
        showAgain: SHOW_AGAIN,
        secret: created.secret,
        note: `Endpoint ${created.url} was added. Its receiver verifies each delivery's signature with this secret.`,
        back: paths(request, created.id),
      });
    },
  );
}

/** An endpoint's page, its event types, enabling and disabling it, and a test event. */
function endpointRoutes(app: App, { endpoint, act }: Pages): void {
  app.get(
    '/:slug/webhooks/:id',
    { config: access, schema: { ...schema, querystring: CursorQuery } },
    async (request) => endpoint(request),
  );

  app.post(
    '/:slug/webhooks/:id/event-types',
    { config: { ...access, formFields: ['event_types'] }, schema },
    async (request, reply) => {
      const selected = list(request.body, 'event_types');
      const fields = { event_types: newEndpointFields.event_types };
      const checked = checkForm(EndpointChangeBody, { event_types: selected }, fields);
      if (!checked.ok) return endpoint(request, { selected, ...checkErrors(checked.errors) }, 400);
      const institutionId = institutionOf(request).id;
      return act(
        request,
        reply,
        () => updateEndpoint(request.deps, institutionId, request.params.id, checked.value),
        'webhook_updated',
        { fields: ['event_types'], shown: (refused) => ({ selected, ...refused }) },
      );
    },
  );

  app.post(
    '/:slug/webhooks/:id/enabled',
    { config: { ...access, formFields: ['enabled'] }, schema },
    async (request, reply) => {
      const enabled = text(request.body, 'enabled') === 'yes';
      const institutionId = institutionOf(request).id;
      return act(
        request,
        reply,
        () => updateEndpoint(request.deps, institutionId, request.params.id, { enabled }),
        enabled ? 'webhook_enabled' : 'webhook_disabled',
      );
    },
  );

  app.post(
    '/:slug/webhooks/:id/test',
    { config: { ...access, formFields: [] }, schema },
    async (request, reply) => {
      const institutionId = institutionOf(request).id;
      return act(
        request,
        reply,
        () => sendTestEvent(request.deps, institutionId, request.params.id),
        'webhook_test_sent',
      );
    },
  );
}

/** Rotating the signing secret, redelivering one event, and replaying failed deliveries. */
function deliveryRoutes(app: App, { paths, endpoint, act }: Pages): void {
  app.post(
    '/:slug/webhooks/:id/rotate',
    { config: { ...access, formFields: ['confirmed'] }, schema },
    async (request) => {
      const c = ctx(request);
      const page = paths(request, request.params.id);
      if (!confirmed(request.body)) {
        // Asking first changes nothing: no audit entry for it.
        request.unchanged = true;
        return c.render('console/confirm.eta', {
          title: 'Rotate the signing secret?',
          message:
            'A new signing secret is issued and shown once. For a while both secrets sign every delivery, so the receiver can switch without losing events; after that only the new one does.',
          action: `${page}/rotate`,
          button: 'Rotate the signing secret',
          back: page,
        });
      }
      let rotated: Awaited<ReturnType<typeof rotateEndpointSecret>>;
      try {
        rotated = await rotateEndpointSecret(request.deps, institutionOf(request).id, request.params.id);
      } catch (error) {
        const refused = refusalOf(error, []);
        return endpoint(request, refused, refused.status);
      }
      return c.render('console/secret-shown.eta', {
        title: 'New signing secret',
        which: 'signing secret',
        showAgain: SHOW_AGAIN,
        secret: rotated.secret,
        note: `The previous secret also signs deliveries until ${timeIn(rotated.previous_secret_expires_at, institutionOf(request).time_zone)}.`,
        back: page,
      });
    },
  );

  app.post(
    '/:slug/webhooks/:id/redeliver',
    { config: { ...access, formFields: ['event_id'] }, schema },
    async (request, reply) => {
      const checked = checkForm(RedeliverBody, { event_id: text(request.body, 'event_id') }, {});
      if (!checked.ok) return endpoint(request, checkErrors(checked.errors), 400);
      const institutionId = institutionOf(request).id;
      return act(
        request,
        reply,
        () => redeliverEvent(request.deps, institutionId, request.params.id, checked.value.event_id),
        'webhook_redelivered',
      );
    },
  );

  app.post(
    '/:slug/webhooks/:id/replay',
    { config: { ...access, formFields: ['since', 'confirmed'] }, schema },
    async (request, reply) => {
      const page = paths(request, request.params.id);
      const since = text(request.body, 'since');
      const replayError = (message: string) =>
        endpoint(request, { replayErrors: { since: message }, since }, 400);
      if (!since) return replayError('Give the time to replay from.');
      const checked = checkForm(
        ReplayBody,
        { since: sinceOf(since, institutionOf(request).time_zone) },
        {
          since: { label: 'Events recorded since', hint: 'Give the time to replay from as a date and time' },
        },
      );
      if (!checked.ok) return replayError(checked.errors.since ?? 'Give the time to replay from.');
      if (!confirmed(request.body)) {
        request.unchanged = true;
        return ctx(request).render('console/confirm.eta', {
          title: 'Replay failed deliveries?',
          message: `Every failed delivery to this endpoint of an event recorded since ${since.replace('T', ' ')} ${institutionOf(request).time_zone} is sent again.`,
          action: `${page}/replay`,
          button: 'Replay the failed deliveries',
          fields: { since },
          back: page,
        });
      }
      const institutionId = institutionOf(request).id;
      return act(
        request,
        reply,
        () => replayFailed(request.deps, institutionId, request.params.id, new Date(checked.value.since)),
        'webhook_replayed',
        {
          fields: ['since'],
          shown: (refused) => ({ replayErrors: refused.errors, formError: refused.formError, since }),
        },
      );
    },
  );
}
