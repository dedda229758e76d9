// The webhook portal's deeper pages (Manage integrations): one attempt with the request sent and
// the response received, the event catalogue (every event type, its schema and an example body),
// deleting an endpoint and showing its signing secret again, both after a confirmation. Each
// calls the webhook domain with the request's context, as the admin API does; the secret's
// reveal and the deletion are recorded in the admin audit like the API's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { eventCatalogue } from '../../../domain/webhooks/catalogue.ts';
import { getAttempt } from '../../../domain/webhooks/deliveries.ts';
import { getEndpoint, removeEndpoint, revealSecret } from '../../../domain/webhooks/endpoints.ts';
import type { WebhookEndpoint } from '../../../domain/webhooks/schemas.ts';
import type { App } from '../../types.ts';
import { ctx, ItemPageParams, institutionOf, PageParams } from './context.ts';
import { confirmed } from './forms.ts';
import { SHOW_AGAIN } from './webhooks-view.ts';

const access = { access: 'integrations' as const };
const AttemptParams = Type.Object({ ...ItemPageParams.properties, attemptId: Type.String() });

/** JSON as people read it: indented when it parses, as sent when it does not. */
export function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const pageOf = (request: FastifyRequest, id?: string) =>
  `/console/${institutionOf(request).slug}/webhooks${id ? `/${id}` : ''}`;

/**
 * The confirmation asked before an endpoint's action, posting back to the action's path. Asking
 * changes nothing: no audit entry for it.
 */
function askFirst(
  request: FastifyRequest<{ Params: { id: string } }>,
  action: string,
  words: { title: string; message: string; button: string },
) {
  request.unchanged = true;
  const page = pageOf(request, request.params.id);
  return ctx(request).render('console/confirm.eta', { ...words, action: `${page}/${action}`, back: page });
}

export function webhookPortalRoutes(app: App): void {
  app.get(
    '/:slug/webhooks/events',
    { config: access, schema: { hide: true, params: PageParams } },
    async (request) =>
      ctx(request).render('console/webhook-events.eta', {
        title: 'Webhook event types',
        back: pageOf(request),
        entries: eventCatalogue().map((entry) => ({
          ...entry,
          schemaText: JSON.stringify(entry.schema, null, 2),
          exampleText: JSON.stringify(entry.example, null, 2),
        })),
      }),
  );

  app.get(
    '/:slug/webhooks/:id/attempts/:attemptId',
    { config: access, schema: { hide: true, params: AttemptParams } },
    async (request) => {
      const { id, attemptId } = request.params;
      const attempt = await getAttempt(request.deps, institutionOf(request).id, id, attemptId);
      return ctx(request).render('console/webhook-attempt.eta', {
        title: `Attempt ${attempt.id}`,
        attempt,
        requestBody: pretty(attempt.request.body),
        responseBody: attempt.response ? pretty(attempt.response.body) : '',
        back: pageOf(request, id),
      });
    },
  );

  confirmedEndpointRoute(app, 'delete', {
    words: (endpoint) => ({
      title: 'Delete this endpoint?',
      message: `${endpoint.url} stops receiving events at once. Its deliveries and attempt log are deleted with it; this cannot be undone. To stop deliveries for a while instead, disable it.`,
      button: 'Delete the endpoint',
    }),
    run: async (request, reply, endpoint) => {
      await removeEndpoint(request.deps.db, institutionOf(request).id, endpoint.id);
      return reply.redirect(`${pageOf(request)}?done=webhook_deleted`, 303);
    },
  });

  confirmedEndpointRoute(app, 'reveal-secret', {
    words: (endpoint) => ({
      title: 'Show the signing secret?',
      message: `The signing secret of ${endpoint.url} is shown on the next page. Showing it is recorded in the audit with your name.`,
      button: 'Show the signing secret',
    }),
    run: async (request, _reply, endpoint) => {
      const { secret } = await revealSecret(request.deps, institutionOf(request).id, endpoint.id);
      return ctx(request).render('console/secret-shown.eta', {
        title: 'Signing secret',
        which: 'signing secret',
        showAgain: SHOW_AGAIN,
        secret,
        note: `The current signing secret of ${endpoint.url}.`,
        back: pageOf(request, endpoint.id),
      });
    },
  });
}

/**
 * An endpoint's action taken after a confirmation: the endpoint is read first (404 for an unknown
 * one), the question asked (in `words`) until the post is confirmed, then `run`.
 */
function confirmedEndpointRoute(
  app: App,
  action: string,
  step: {
    words: (endpoint: WebhookEndpoint) => { title: string; message: string; button: string };
    run: (request: FastifyRequest, reply: FastifyReply, endpoint: WebhookEndpoint) => Promise<unknown>;
  },
): void {
  app.post(
    `/:slug/webhooks/:id/${action}`,
    { config: { ...access, formFields: ['confirmed'] }, schema: { hide: true, params: ItemPageParams } },
    async (request, reply) => {
      const endpoint = await getEndpoint(request.deps, institutionOf(request).id, request.params.id);
      if (!confirmed(request.body)) return askFirst(request, action, step.words(endpoint));
      return step.run(request, reply, endpoint);
    },
  );
}
