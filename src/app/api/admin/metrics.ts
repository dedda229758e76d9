// Webhook delivery metrics as JSON for the operator (admin API), and every metric of the process
// in Prometheus' text format for scrapers (GET /metrics, with the scrape token of its own).
import { Type } from 'typebox';
import { webhookMetrics } from '../../../domain/webhooks/metrics.ts';
import { scrape } from '../../../lib/telemetry/metrics.ts';
import type { App } from '../../types.ts';
import { adminRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';

export function adminMetricsRoutes(app: App): void {
  const tags = ['webhooks'];

  app.get(
    '/admin/v1/metrics',
    adminRoute('operator', tags, {
      summary: 'Webhook delivery metrics (JSON): queue depth, outcomes, endpoints',
      description:
        'queue.pending: deliveries not finished; due: ready now and not leased; in_flight: leased by a worker; ' +
        'retrying: waiting for a later attempt; oldest_due_age_seconds: lag of the oldest due delivery; ' +
        'failed: deliveries given up (or stopped by disabling) and not replayed; failed_last_day: of those, finished in the last day. ' +
        'attempts: counts per outcome over the last hour and day. Same figures in Prometheus text at GET /metrics (scrape token).',
      response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(401) },
    }),
    async (request) => webhookMetrics(request.deps.db, request.deps.clock),
  );

  app.get(
    '/metrics',
    {
      // The request context checks the scrape token (not the operator token, and no session).
      config: { access: 'feed', credential: 'scrape_token' },
      schema: {
        tags,
        security: [{ metricsToken: [] }],
        summary: 'Prometheus metrics (text exposition format; the scrape token, METRICS_TOKEN)',
        description:
          'Authorization: Bearer <METRICS_TOKEN>. 404 while no METRICS_TOKEN is configured. ' +
          'The metrics and the alerts worth setting on them are in docs/operations.md.',
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await scrape();
      return reply.type(contentType).send(body);
    },
  );
}
