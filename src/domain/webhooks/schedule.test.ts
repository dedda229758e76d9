import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  decide,
  JITTER,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  RETRY_DELAYS_MS,
} from './schedule.ts';

test('the retry schedule lasts about a day', () => {
  const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.ok(total > 20 * 3_600_000 && total < 28 * 3_600_000, `${total / 3_600_000} h`);
  assert.equal(MAX_ATTEMPTS, 11);
});

test('failures are retried with exponential backoff within the jitter bounds (property)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }),
      fc.double({ min: 0, max: 0.999999, noNaN: true }),
      fc.constantFrom('http_error', 'timeout', 'connection_error', 'redirect', 'blocked_address'),
      (attempts, r, outcome) => {
        const d = decide(
          { outcome, statusCode: outcome === 'http_error' ? 500 : undefined },
          attempts,
          () => r,
        );
        assert.equal(d.kind, 'retry');
        if (d.kind !== 'retry') return;
        const base = RETRY_DELAYS_MS[attempts - 1];
        assert.ok(
          d.delayMs >= Math.floor(base * (1 - JITTER)) && d.delayMs <= Math.ceil(base * (1 + JITTER)),
        );
      },
    ),
    { numRuns: 50 },
  );
});

test('gives up after the last attempt; 2xx succeeds; 410 disables', () => {
  assert.deepEqual(decide({ outcome: 'http_error', statusCode: 500 }, MAX_ATTEMPTS), { kind: 'failed' });
  assert.deepEqual(decide({ outcome: 'success', statusCode: 204 }, 3), { kind: 'succeeded' });
  assert.equal(decide({ outcome: 'http_error', statusCode: 410 }, 1).kind, 'disable_endpoint');
});

test('Retry-After is honoured on 429 and 503 only, within bounds', () => {
  assert.deepEqual(decide({ outcome: 'http_error', statusCode: 429, retryAfterMs: 120_000 }, 1), {
    kind: 'retry',
    delayMs: 120_000,
  });
  assert.deepEqual(decide({ outcome: 'http_error', statusCode: 503, retryAfterMs: 0 }, 1), {
    kind: 'retry',
    delayMs: 1_000,
  });
  assert.deepEqual(decide({ outcome: 'http_error', statusCode: 429, retryAfterMs: 10 * 86_400_000 }, 1), {
    kind: 'retry',
    delayMs: MAX_RETRY_AFTER_MS,
  });
  const d = decide({ outcome: 'http_error', statusCode: 500, retryAfterMs: 120_000 }, 1, () => 0.5);
  assert.deepEqual(d, { kind: 'retry', delayMs: RETRY_DELAYS_MS[0] });
  const now = new Date('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('30', now), 30_000);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(undefined, now), undefined);
});

test('Retry-After accepts only delta-seconds and IMF-fixdate; anything else means normal backoff', () => {
  const now = new Date('2026-11-22T23:00:00Z');
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter(' 120 ', now), 120_000);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 23:02:00 GMT', now), 120_000);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 22:00:00 GMT', now), 0, 'a past date: at once');
  for (const junk of [
    '1.5',
    '-1',
    '+5',
    '1e3',
    '2026-11-22T23:02:00Z',
    'Sunday, 22-Nov-26 23:02:00 GMT',
    'Sun Nov 22 23:02:00 2026',
    'Sun, 22 Nov 2026 23:02:00 +0000',
    'Sun, 31 Feb 2026 23:02:00 GMT',
    'Monday',
    '',
  ])
    assert.equal(parseRetryAfter(junk, now), undefined, junk);
  // Unusable values fall back to the schedule.
  assert.deepEqual(
    decide(
      { outcome: 'http_error', statusCode: 503, retryAfterMs: parseRetryAfter('1.5', now) },
      1,
      () => 0.5,
    ),
    { kind: 'retry', delayMs: RETRY_DELAYS_MS[0] },
  );
});
