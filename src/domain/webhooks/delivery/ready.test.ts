import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Shares } from './capacity.ts';
import type { Claimed } from './claim.ts';
import { createReadyQueue, type Waiting } from './ready.ts';

const shares: Shares = {
  concurrency: 4,
  perEndpoint: 2,
  fairShare: 1,
  slowShare: 1,
  overflowShare: 1,
  slowAfterMs: 5_000,
};

let next = 0;
function waiting(endpoint: string, since = performance.now()): Waiting {
  next++;
  return {
    delivery: { id: `d${next}`, endpoint_id: endpoint } as Claimed,
    abandon: new AbortController(),
    since,
  };
}

function harness() {
  const started: string[] = [];
  const givenBack: string[][] = [];
  const timedOut = new Set<string>();
  const queue = createReadyQueue({
    shares,
    timedOut: (endpoint) => timedOut.has(endpoint),
    start: (w) => started.push(w.delivery.endpoint_id),
    giveBack: (deliveries) => givenBack.push(deliveries.map((d) => d.endpoint_id)),
  });
  return { queue, started, givenBack, timedOut };
}

test('attempts start within the fair share, the overflow pool and the per-endpoint limit; the rest waits', () => {
  const { queue, started } = harness();
  queue.add([1, 2, 3, 4, 5].map(() => waiting('a')));
  // a: its fair share (1) and the whole overflow pool (1).
  assert.deepEqual(started, ['a', 'a']);
  queue.add([waiting('b'), waiting('b')]);
  // b: its fair share only, the overflow pool being taken.
  assert.deepEqual(started, ['a', 'a', 'b']);
  assert.equal(queue.waiting, 4);
  assert.equal(queue.running, 3);

  // One of a's attempts ends: the overflow slot it held goes to whichever endpoint is next.
  queue.finished('a', true);
  assert.equal(started.length, 4);
  assert.equal(queue.running, 3);
  // Never more than the per-endpoint limit of a, nor the worker's 4.
  queue.finished('b', true);
  assert.ok(queue.running <= shares.concurrency);
  assert.equal(queue.drain().length + started.length, 7, 'every delivery either started or still waiting');
  assert.equal(queue.waiting, 0);
});

test('an endpoint that timed out, or whose oldest waiting delivery waited too long, has its waiting deliveries given back', () => {
  const { queue, started, givenBack, timedOut } = harness();
  queue.add([1, 2, 3, 4].map(() => waiting('a')));
  assert.equal(started.length, 2);
  timedOut.add('a');
  queue.finished('a', true);
  assert.deepEqual(givenBack, [['a', 'a']], 'given back, not started');
  assert.equal(started.length, 2);
  assert.equal(queue.waiting, 0);

  const long = performance.now() - shares.slowAfterMs - 1;
  queue.add([waiting('c', long), waiting('c', long)]);
  assert.deepEqual(givenBack[1], ['c', 'c'], 'waited longer than slowAfterMs: given back, not started');
  assert.equal(started.length, 2);
  assert.equal(queue.waiting, 0);
});

test('a stopping worker starts nothing more', () => {
  const { queue, started } = harness();
  queue.add([1, 2, 3].map(() => waiting('a')));
  assert.equal(started.length, 2);
  queue.finished('a', false);
  assert.equal(started.length, 2);
  assert.equal(queue.drain().length, 1);
});
