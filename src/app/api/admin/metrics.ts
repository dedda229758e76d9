// Webhook delivery metrics as JSON for the operator (admin API), and every metric of the process
// in Prometheus' text format for scrapers (GET /metrics, with the scrape token of its own).
import { Type } from 'typebox';
import { ApiError } from '../../../errors.ts';
import { isScrapeToken, scrape } from '../../../lib/telemetry/metrics.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { adminSecurity, errorResponses } from '../schemas.ts';

export function adminMetricsRoutes(app: App, services: Services): void {
  const { webhooks } = services;
  const tags = ['webhooks'];
  const security = adminSecurity;

  app.get(
    '/admin/v1/metrics',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Webhook delivery metrics (JSON): queue depth, outcomes, endpoints',
        description:
          'queue.pending: deliveries not finished; due: ready now and not leased; in_flight: leased by a worker; ' +
          'retrying: waiting for a later attempt; oldest_due_age_seconds: lag of the oldest due delivery; ' +
          'failed: deliveries given up (or stopped by disabling) and not replayed; failed_last_day: of those, finished in the last day. ' +
          'attempts: counts per outcome over the last hour and day. Same figures in Prometheus text at GET /metrics (scrape token).',
        response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(401) },
      },
    },
    async () => webhooks.metrics(),
  );

  app.get(
    '/metrics',
    {
      // The route checks its own credential, the scrape token: the operator token, which can do
      // everything, is never needed (nor accepted) to read metrics, and no session is read.
      config: { access: 'feed' },
      schema: {
        tags,
        security: [{ metricsToken: [] }],
        summary: 'Prometheus metrics (text exposition format; the scrape token, METRICS_TOKEN)',
        description:
          'Authorization: Bearer <METRICS_TOKEN>. 404 while no METRICS_TOKEN is configured. ' +
          'The metrics and the alerts worth setting on them are in docs/operations.md.',
      },
    },
    async (request, reply) => {
      const expected = services.config.metricsTokenHash;
      if (!expected)
        throw new ApiError('not_found', { detail: 'metrics are off: set METRICS_TOKEN to read them here' });
      if (!isScrapeToken(request.headers.authorization, expected))
        throw new ApiError('unauthorized', { detail: 'send Authorization: Bearer <METRICS_TOKEN>' });
      const { contentType, body } = await scrape();
      return reply.type(contentType).send(body);
    },
  );
}
