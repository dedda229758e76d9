// Webhook delivery metrics over every institution (the operator's view): queue depth, outcomes of
// the last hour and day, endpoints enabled and disabled. Four aggregate queries, each reading a
// partial index or a time window, never the whole delivery history. The same figures are written
// as JSON (the admin API) and as Prometheus gauges (GET /metrics).
import { type Static, Type } from 'typebox';
import type { Queryable } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { DateTime } from '../../lib/schema.ts';
import { sourcedGauges } from '../../lib/telemetry/metrics.ts';
import { attemptCounts, endpointCounts, failedCounts, queueCounts } from './delivery/sql/metrics.ts';

const Count = (description?: string) => Type.Number({ description });

export const WebhookMetrics = Type.Object({
  queue: Type.Object({
    pending: Count('Deliveries not finished'),
    due: Count('Ready now and not leased'),
    in_flight: Count('Leased by a worker'),
    retrying: Count('Waiting for a later attempt'),
    oldest_due_age_seconds: Count('Lag of the oldest due delivery'),
    failed: Count('Deliveries given up (or stopped by disabling) and not replayed'),
    failed_last_day: Count('Of those, finished in the last day'),
  }),
  attempts: Type.Record(Type.String(), Type.Object({ last_hour: Count(), last_day: Count() }), {
    description: 'Attempts per outcome over the last hour and the last day',
  }),
  endpoints: Type.Object({ enabled: Count(), disabled: Count() }),
  measured_at: DateTime(),
});
export type WebhookMetrics = Static<typeof WebhookMetrics>;

export async function webhookMetrics(q: Queryable, clock: Clock): Promise<WebhookMetrics> {
  const now = clock.now();
  const queue = await queueCounts(q, now);
  const failed = await failedCounts(q, now);
  const attempts = await attemptCounts(q, now);
  const endpoints = await endpointCounts(q);
  return {
    queue: { ...queue, ...failed },
    attempts: Object.fromEntries(
      attempts.map((a) => [a.outcome, { last_hour: a.last_hour, last_day: a.last_day }]),
    ),
    endpoints,
    measured_at: now,
  };
}

/**
 * The same figures as Prometheus gauges (GET /metrics), read at scrape time from the database
 * the process entry points them at (webhookGauges.setSource, in src/workers/metrics.ts).
 */
export const webhookGauges = sourcedGauges<WebhookMetrics>([
  {
    name: 'ssp_webhook_deliveries',
    help: 'Webhook deliveries by state',
    labelNames: ['state'],
    samples: ({ queue: q }) => [
      [{ state: 'pending' }, q.pending],
      [{ state: 'due' }, q.due],
      [{ state: 'in_flight' }, q.in_flight],
      [{ state: 'retrying' }, q.retrying],
      [{ state: 'failed' }, q.failed],
    ],
  },
  {
    name: 'ssp_webhook_failed_last_day',
    help: 'Deliveries given up in the last day',
    samples: (m) => [[{}, m.queue.failed_last_day]],
  },
  {
    name: 'ssp_webhook_oldest_due_age_seconds',
    help: 'Age of the oldest due delivery',
    samples: (m) => [[{}, m.queue.oldest_due_age_seconds]],
  },
  {
    name: 'ssp_webhook_attempts_last_hour',
    help: 'Delivery attempts in the last hour by outcome',
    labelNames: ['outcome'],
    samples: (m) => Object.entries(m.attempts).map(([outcome, v]) => [{ outcome }, v.last_hour]),
  },
  {
    name: 'ssp_webhook_attempts_last_day',
    help: 'Delivery attempts in the last day by outcome',
    labelNames: ['outcome'],
    samples: (m) => Object.entries(m.attempts).map(([outcome, v]) => [{ outcome }, v.last_day]),
  },
  {
    name: 'ssp_webhook_endpoints',
    help: 'Webhook endpoints by status',
    labelNames: ['enabled'],
    samples: (m) => [
      [{ enabled: 'true' }, m.endpoints.enabled],
      [{ enabled: 'false' }, m.endpoints.disabled],
    ],
  },
]);
