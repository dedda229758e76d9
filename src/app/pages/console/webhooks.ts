// Webhooks (Manage integrations): the endpoints, adding one (the URL guard's refusal next to the
// URL field; the signing secret shown once), event types, disable and enable, rotating the
// signing secret (confirmed; the new secret shown once with the end of the overlap window), a
// test event, and an endpoint's delivery log (paged, each delivery with all its attempts), redelivery of one event and
// replay of failed deliveries since a time (confirmed). Every read and write is the admin API's.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { EVENT_TYPES } from '../../../domain/webhooks/schemas.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { pageId } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { confirmed, formErrors, list, text, when } from './forms.ts';
import { CursorQuery, listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String() });
const EndpointParams = Type.Object({ slug: Type.String(), id: Type.String() });
const listSchema = { hide: true, params: Params };
const schema = { hide: true, params: EndpointParams };

export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log: Attempt[];
}

interface Attempt {
  id: number;
  attempted_at: string;
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** A `datetime-local` value (read as UTC, as every time in the console is shown) or an ISO time. */
function sinceOf(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${value}:00Z`;
  return value;
}

export function webhookRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest, id?: string) => {
    const slug = institutionOf(request).slug;
    const api = `/admin/v1/institutions/${slug}/webhook-endpoints`;
    const page = `/console/${slug}/webhooks`;
    return id ? { api: `${api}/${id}`, page: `${page}/${id}` } : { api, page };
  };

  const endpoints = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const listing = await c.api.get<{ items: Endpoint[] }>(`${paths(request).api}?limit=200`);
    return c.render(
      'console/webhooks.eta',
      {
        title: 'Webhooks',
        endpoints: listing.items,
        eventTypes: EVENT_TYPES,
        values: { url: '', description: '', event_types: [] },
        errors: {},
        when,
        ...extra,
      },
      status,
    );
  };

  const endpoint = async (
    request: FastifyRequest,
    id: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const c = ctx(request);
    pageId(id, { error: 'not_found', detail: 'no such webhook endpoint' });
    const { api } = paths(request, id);
    const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor;
    // The log pages by the API's cursor; each delivery comes with all of its attempts.
    const [found, deliveries] = await Promise.all([
      c.api.get<Endpoint>(api),
      listPage<Delivery>(
        c.api,
        `${api}/deliveries`,
        { include_attempts: true },
        { cursor: typeof cursor === 'string' ? cursor : undefined, size: 50 },
      ),
    ]);
    return c.render(
      'console/webhook.eta',
      {
        title: `Webhook endpoint ${found.url}`,
        endpoint: found,
        deliveries: deliveries.items.map((d) => ({ ...d, tries: d.attempt_log })),
        log: deliveries,
        eventTypes: EVENT_TYPES,
        selected: found.event_types,
        errors: {},
        when,
        ...extra,
      },
      status,
    );
  };

  app.get('/:slug/webhooks', { config: { access: 'integrations' }, schema: listSchema }, async (request) =>
    endpoints(request),
  );

  app.post('/:slug/webhooks', { config: { access: 'integrations' }, schema: listSchema }, async (request) => {
    const c = ctx(request);
    const values = {
      url: text(request.body, 'url'),
      description: text(request.body, 'description'),
      event_types: list(request.body, 'event_types'),
    };
    const answer = await c.api.call<Endpoint & { secret: string }>('POST', paths(request).api, {
      url: values.url,
      event_types: values.event_types,
      ...(values.description ? { description: values.description } : {}),
    });
    if (!answer.ok)
      return endpoints(
        request,
        { values, ...formErrors(answer.problem, ['url', 'event_types', 'description']) },
        answer.status,
      );
    return c.render('console/secret-shown.eta', {
      title: 'New webhook endpoint',
      which: 'signing secret',
      kept: 'It is stored encrypted and cannot be read back.',
      secret: answer.body.secret,
      note: `Endpoint ${answer.body.url} was added. Its receiver verifies each delivery's signature with this secret.`,
      back: paths(request, answer.body.id).page,
    });
  });

  app.get(
    '/:slug/webhooks/:id',
    { config: { access: 'integrations' }, schema: { ...schema, querystring: CursorQuery } },
    async (request) => endpoint(request, request.params.id),
  );

  app.post(
    '/:slug/webhooks/:id/event-types',
    { config: { access: 'integrations' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      const selected = list(request.body, 'event_types');
      const answer = await c.api.call('PATCH', api, { event_types: selected });
      if (!answer.ok)
        return endpoint(
          request,
          request.params.id,
          { selected, ...formErrors(answer.problem, ['event_types']) },
          answer.status,
        );
      return reply.redirect(`${page}?done=webhook_updated`, 303);
    },
  );

  app.post(
    '/:slug/webhooks/:id/enabled',
    { config: { access: 'integrations' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      const enabled = text(request.body, 'enabled') === 'yes';
      const answer = await c.api.call('PATCH', api, { enabled });
      if (!answer.ok)
        return endpoint(request, request.params.id, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${page}?done=${enabled ? 'webhook_enabled' : 'webhook_disabled'}`, 303);
    },
  );

  app.post('/:slug/webhooks/:id/rotate', { config: { access: 'integrations' }, schema }, async (request) => {
    const c = ctx(request);
    const { api, page } = paths(request, request.params.id);
    if (!confirmed(request.body))
      return c.render('console/confirm.eta', {
        title: 'Rotate the signing secret?',
        message:
          'A new signing secret is issued and shown once. For a while both secrets sign every delivery, so the receiver can switch without losing events; after that only the new one does.',
        action: `${page}/rotate`,
        button: 'Rotate the signing secret',
        back: page,
      });
    const answer = await c.api.call<{ secret: string; previous_secret_expires_at: string }>(
      'POST',
      `${api}/rotate-secret`,
    );
    if (!answer.ok)
      return endpoint(request, request.params.id, formErrors(answer.problem, []), answer.status);
    return c.render('console/secret-shown.eta', {
      title: 'New signing secret',
      which: 'signing secret',
      kept: 'It is stored encrypted and cannot be read back.',
      secret: answer.body.secret,
      note: `The previous secret also signs deliveries until ${when(answer.body.previous_secret_expires_at)}.`,
      back: page,
    });
  });

  app.post(
    '/:slug/webhooks/:id/test',
    { config: { access: 'integrations' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      const answer = await c.api.call('POST', `${api}/test`, {});
      if (!answer.ok)
        return endpoint(request, request.params.id, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${page}?done=webhook_test_sent`, 303);
    },
  );

  app.post(
    '/:slug/webhooks/:id/redeliver',
    { config: { access: 'integrations' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      const answer = await c.api.call('POST', `${api}/redeliver`, {
        event_id: text(request.body, 'event_id'),
      });
      if (!answer.ok)
        return endpoint(request, request.params.id, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${page}?done=webhook_redelivered`, 303);
    },
  );

  app.post(
    '/:slug/webhooks/:id/replay',
    { config: { access: 'integrations' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      const since = text(request.body, 'since');
      if (!since)
        return endpoint(
          request,
          request.params.id,
          { replayErrors: { since: 'Give the time to replay from.' }, since },
          400,
        );
      if (!confirmed(request.body))
        return c.render('console/confirm.eta', {
          title: 'Replay failed deliveries?',
          message: `Every failed delivery to this endpoint of an event recorded since ${since} UTC is sent again.`,
          action: `${page}/replay`,
          button: 'Replay the failed deliveries',
          fields: { since },
          back: page,
        });
      const answer = await c.api.call<{ requeued: number }>('POST', `${api}/replay`, {
        since: sinceOf(since),
      });
      if (!answer.ok) {
        const shown = formErrors(answer.problem, ['since']);
        return endpoint(
          request,
          request.params.id,
          { replayErrors: shown.errors, formError: shown.formError, since },
          answer.status,
        );
      }
      return reply.redirect(`${page}?done=webhook_replayed`, 303);
    },
  );
}
