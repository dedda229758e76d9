import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prometheusText } from './metrics.ts';

test('the metrics as Prometheus text: one gauge family each, labelled samples, a final newline', () => {
  const text = prometheusText({
    queue: {
      pending: 5,
      due: 2,
      in_flight: 1,
      retrying: 2,
      oldest_due_age_seconds: 12.5,
      failed: 3,
      failed_last_day: 1,
    },
    attempts: { delivered: { last_hour: 4, last_day: 40 }, http_error: { last_hour: 0, last_day: 2 } },
    endpoints: { enabled: 7, disabled: 1 },
    measured_at: new Date('2026-01-01T00:00:00Z'),
  });
  assert.ok(text.endsWith('\n'));
  assert.match(text, /^# TYPE ssp_webhook_deliveries gauge$/m);
  assert.match(text, /^ssp_webhook_deliveries\{state="pending"\} 5$/m);
  assert.match(text, /^ssp_webhook_oldest_due_age_seconds 12\.5$/m);
  assert.match(text, /^ssp_webhook_attempts_last_day\{outcome="http_error"\} 2$/m);
  assert.match(text, /^ssp_webhook_endpoints\{enabled="false"\} 1$/m);
  assert.equal(text.match(/^# HELP /gm)?.length, 6);
});

test('no attempts yet: the attempt families are declared without samples', () => {
  const text = prometheusText({
    queue: {
      pending: 0,
      due: 0,
      in_flight: 0,
      retrying: 0,
      oldest_due_age_seconds: 0,
      failed: 0,
      failed_last_day: 0,
    },
    attempts: {},
    endpoints: { enabled: 0, disabled: 0 },
    measured_at: new Date(),
  });
  assert.match(text, /# TYPE ssp_webhook_attempts_last_hour gauge\n# HELP ssp_webhook_attempts_last_day/);
});
