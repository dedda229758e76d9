import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideAfterFailure, FIRST_RETRY_MS, MAX_ATTEMPTS } from './retry.ts';

const half = () => 0.5;

test('a temporary refusal is retried with doubling delays', () => {
  const delays = [1, 2, 3].map((n) =>
    decideAfterFailure({ responseCode: 451, message: 'busy' }, n, undefined, half),
  );
  assert.deepEqual(delays, [
    { kind: 'retry', delayMs: FIRST_RETRY_MS },
    { kind: 'retry', delayMs: 2 * FIRST_RETRY_MS },
    { kind: 'retry', delayMs: 4 * FIRST_RETRY_MS },
  ]);
});

test('jitter stays within a fifth either side', () => {
  const low = decideAfterFailure({ message: 'x' }, 1, undefined, () => 0);
  const high = decideAfterFailure({ message: 'x' }, 1, undefined, () => 0.999999);
  assert.deepEqual(low, { kind: 'retry', delayMs: 0.8 * FIRST_RETRY_MS });
  assert.equal(high.kind, 'retry');
  assert.ok(high.kind === 'retry' && high.delayMs <= 1.2 * FIRST_RETRY_MS);
});

test('the last attempt gives up, naming the last failure', () => {
  const decision = decideAfterFailure({ message: 'connection refused' }, MAX_ATTEMPTS);
  assert.deepEqual(decision, {
    kind: 'failed',
    reason: `gave up after ${MAX_ATTEMPTS} attempts: connection refused`,
  });
});

test('a permanent refusal (5xx) gives up at once', () => {
  const decision = decideAfterFailure({ responseCode: 550, message: '550 no such mailbox' }, 1);
  assert.deepEqual(decision, { kind: 'failed', reason: 'refused by the mail server: 550 no such mailbox' });
});
