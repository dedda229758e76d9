import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrape } from '../../lib/telemetry/metrics.ts';
import { type WebhookMetrics, webhookGauges } from './metrics.ts';

const figures = (attempts: WebhookMetrics['attempts']): WebhookMetrics => ({
  queue: {
    pending: 5,
    due: 2,
    in_flight: 1,
    retrying: 2,
    oldest_due_age_seconds: 12.5,
    failed: 3,
    failed_last_day: 1,
  },
  attempts,
  endpoints: { enabled: 7, disabled: 1 },
  measured_at: new Date('2026-01-01T00:00:00Z'),
});

test('the metrics as Prometheus gauges: one family each, labelled samples, read once a scrape', async () => {
  let reads = 0;
  const unset = webhookGauges.setSource(async () => {
    reads++;
    return figures({ delivered: { last_hour: 4, last_day: 40 }, http_error: { last_hour: 0, last_day: 2 } });
  });
  try {
    const { body: text } = await scrape();
    assert.equal(reads, 1);
    assert.match(text, /^# TYPE ssp_webhook_deliveries gauge$/m);
    assert.match(text, /^ssp_webhook_deliveries\{state="pending"\} 5$/m);
    assert.match(text, /^ssp_webhook_oldest_due_age_seconds 12\.5$/m);
    assert.match(text, /^ssp_webhook_attempts_last_day\{outcome="http_error"\} 2$/m);
    assert.match(text, /^ssp_webhook_endpoints\{enabled="false"\} 1$/m);
  } finally {
    unset();
  }
});

test('no source (no database), or no attempts yet: the families are declared without samples', async () => {
  const { body: text } = await scrape();
  assert.match(text, /^# TYPE ssp_webhook_attempts_last_hour gauge$/m);
  assert.doesNotMatch(text, /^ssp_webhook_deliveries\{/m);
});
