import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_BACKOFF_MS, nextFetchDelayMs } from './schedule.ts';

const MIN = 60_000;

test('after a success the next fetch comes after the refresh interval, with up to 5% jitter', () => {
  assert.equal(
    nextFetchDelayMs(60, 0, () => 0),
    60 * MIN,
  );
  assert.equal(
    nextFetchDelayMs(60, 0, () => 0.999999),
    Math.round(60 * MIN * 1.0499999),
  );
});

test('failures back off exponentially from the refresh interval, capped at a day', () => {
  const mid = () => 0.5;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 20].map((n) => nextFetchDelayMs(60, n, mid) / MIN),
    [60, 120, 240, 480, 960, 1440, 1440],
  );
  // A weekly feed is never retried less often than weekly, nor more often on failure.
  assert.equal(nextFetchDelayMs(10_080, 3, mid), 10_080 * MIN);
});

test('backoff delays stay within the jitter bounds and never shrink as failures grow (property)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 5, max: 10_080 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.double({ min: 0, max: 0.999999, noNaN: true }),
      (refresh, failures, r) => {
        const delay = nextFetchDelayMs(refresh, failures, () => r);
        const cap = Math.max(refresh * MIN, MAX_BACKOFF_MS);
        assert.ok(delay >= refresh * MIN * 0.9 - 1);
        assert.ok(delay <= cap * 1.1 + 1);
        assert.ok(nextFetchDelayMs(refresh, failures + 1, () => r) >= delay);
      },
    ),
  );
});
