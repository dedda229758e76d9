// Admin API: webhook delivery metrics, as JSON for the admin API and in Prometheus text format
// for scrapers. Operator only.
import { Type } from 'typebox';
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
          'attempts: counts per outcome over the last hour and day. Same figures in Prometheus text at GET /metrics.',
        response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(401) },
      },
    },
    async () => webhooks.metrics(),
  );

  app.get(
    '/metrics',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Prometheus metrics (text exposition format; operator token required)',
      },
    },
    async (_request, reply) => {
      const m = await webhooks.metrics();
      const lines: string[] = [];
      const gauge = (name: string, help: string, samples: [string, number][]) => {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
        for (const [labels, value] of samples) lines.push(`${name}${labels} ${Number(value ?? 0)}`);
      };
      const q = m.queue as Record<string, number>;
      gauge('ssp_webhook_deliveries', 'Webhook deliveries by state', [
        ['{state="pending"}', q.pending],
        ['{state="due"}', q.due],
        ['{state="in_flight"}', q.in_flight],
        ['{state="retrying"}', q.retrying],
        ['{state="failed"}', q.failed],
      ]);
      gauge('ssp_webhook_failed_last_day', 'Deliveries given up in the last day', [['', q.failed_last_day]]);
      gauge('ssp_webhook_oldest_due_age_seconds', 'Age of the oldest due delivery', [
        ['', q.oldest_due_age_seconds],
      ]);
      gauge(
        'ssp_webhook_attempts_last_hour',
        'Delivery attempts in the last hour by outcome',
        Object.entries(m.attempts).map(([outcome, v]) => [`{outcome="${outcome}"}`, v.last_hour]),
      );
      gauge(
        'ssp_webhook_attempts_last_day',
        'Delivery attempts in the last day by outcome',
        Object.entries(m.attempts).map(([outcome, v]) => [`{outcome="${outcome}"}`, v.last_day]),
      );
      gauge('ssp_webhook_endpoints', 'Webhook endpoints by status', [
        ['{enabled="true"}', m.endpoints.enabled],
        ['{enabled="false"}', m.endpoints.disabled],
      ]);
      return reply.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
    },
  );
}
