import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { capacity, type EndpointLoad, sharesFor, wakeAfter } from './capacity.ts';

const shares = sharesFor({ attemptTimeoutMs: 10_000 });
const load = (inFlight: number, ageMs = 0, recentlyTimedOut = false): EndpointLoad => ({
  inFlight,
  oldestStartedAt: 1_000_000 - ageMs,
  recentlyTimedOut,
});
const now = 1_000_000;

test('default shares of 256 slots: 16 free per endpoint, 64 slow, 128 overflow, 128 per endpoint', () => {
  assert.deepEqual(shares, {
    concurrency: 256,
    perEndpoint: 128,
    fairShare: 16,
    slowShare: 64,
    overflowShare: 128,
    slowAfterMs: 5_000,
  });
  assert.equal(wakeAfter(shares), 64);
  assert.deepEqual(sharesFor({ attemptTimeoutMs: 1_000, concurrency: 4 }), {
    concurrency: 4,
    perEndpoint: 128,
    fairShare: 1,
    slowShare: 1,
    overflowShare: 2,
    slowAfterMs: 500,
  });
});

test('an idle worker has every room and excludes nothing', () => {
  assert.deepEqual(capacity(new Map(), now, shares), {
    excluded: [],
    slow: [],
    counts: {},
    slowRoom: 64,
    overflowRoom: 128,
  });
});

test('an attempt in flight longer than slowAfterMs, or a recent timeout, makes its endpoint slow', () => {
  const cap = capacity(
    new Map([
      ['fresh', load(3, 4_999)],
      ['hanging', load(10, 5_001)],
      ['timed-out', load(2, 0, true)],
    ]),
    now,
    shares,
  );
  assert.deepEqual(cap.slow, ['hanging', 'timed-out']);
  assert.equal(cap.slowRoom, 64 - 12);
  assert.deepEqual(cap.counts, { fresh: 3, hanging: 10, 'timed-out': 2 });
  assert.equal(cap.overflowRoom, 128, 'slow endpoints do not draw on the overflow pool');
});

test('beyond its fair share a healthy endpoint draws on the overflow pool; when it is spent, busy endpoints are excluded', () => {
  const some = capacity(new Map([['busy', load(40)]]), now, shares);
  assert.equal(some.overflowRoom, 128 - 24);
  assert.deepEqual(some.excluded, []);
  const spent = capacity(
    new Map([
      ['a', load(16 + 64)],
      ['b', load(16 + 64)],
      ['quiet', load(3)],
    ]),
    now,
    shares,
  );
  assert.equal(spent.overflowRoom, 0);
  assert.deepEqual(spent.excluded, ['a', 'b'], 'busy endpoints excluded, the quiet one still claimable');
});

test('an endpoint at the per-endpoint limit is excluded whatever its class', () => {
  const cap = capacity(new Map([['full', load(128, 9_000)]]), now, shares);
  assert.deepEqual(cap.excluded, ['full']);
  assert.deepEqual(cap.slow, ['full']);
  assert.equal(cap.slowRoom, 0);
});

test('rooms are never negative and every endpoint is in exactly one class (property)', () => {
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.string({ minLength: 1, maxLength: 4 }),
        fc.record({
          inFlight: fc.integer({ min: 0, max: 200 }),
          age: fc.integer({ min: 0, max: 20_000 }),
          timedOut: fc.boolean(),
        }),
      ),
      (entries) => {
        const loads = new Map(
          Object.entries(entries).map(([k, v]) => [k, load(v.inFlight, v.age, v.timedOut)] as const),
        );
        const cap = capacity(loads, now, shares);
        assert.ok(cap.slowRoom >= 0 && cap.slowRoom <= shares.slowShare);
        assert.ok(cap.overflowRoom >= 0 && cap.overflowRoom <= shares.overflowShare);
        for (const [endpoint, l] of loads) {
          if (l.inFlight === 0) {
            assert.equal(cap.counts[endpoint], undefined);
            continue;
          }
          assert.equal(cap.counts[endpoint], l.inFlight);
          const slow = l.recentlyTimedOut || now - l.oldestStartedAt > shares.slowAfterMs;
          assert.equal(cap.slow.includes(endpoint), slow);
          if (l.inFlight >= shares.perEndpoint) assert.ok(cap.excluded.includes(endpoint));
        }
      },
    ),
  );
});
