import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, withWorker, workerFor } from '../helpers/webhooks.ts';

const receiver = receiverPool();

/** Waits (real time, polling) until `done()` or `ms` have passed; returns the time waited. */
async function waitFor(done: () => boolean, ms: number): Promise<number> {
  const started = performance.now();
  while (!done() && performance.now() - started < ms) await new Promise((r) => setTimeout(r, 10));
  return performance.now() - started;
}

describeEachDatabase(
  'webhook delivery isolation',
  (ctx) => {
    test('two hanging endpoints with large backlogs do not hold up a healthy endpoint', async () => {
      const a = await seedTenant(ctx(), { rosterSecret: false });
      const b = await seedTenant(ctx(), { rosterSecret: false });
      const c = await seedTenant(ctx(), { rosterSecret: false });
      const hangA = await receiver('hang');
      const hangB = await receiver('hang');
      const ok = await receiver({ status: 200 });
      await addEndpoint(ctx(), a, { url: hangA.url });
      await addEndpoint(ctx(), b, { url: hangB.url });
      await addEndpoint(ctx(), c, { url: ok.url });
      const clock = testClock();
      for (let i = 0; i < 140; i++) {
        await emitEvent(ctx(), a, clock);
        await emitEvent(ctx(), b, clock);
      }
      const attemptTimeoutMs = 4_000;
      const worker = workerFor(ctx(), a, clock, {
        institutionIds: [a.institutionId, b.institutionId, c.institutionId],
        attemptTimeoutMs,
      });
      worker.start();
      try {
        // The hanging endpoints have taken what they may.
        await waitFor(() => hangA.received.length + hangB.received.length >= 64, 3_000);
        assert.ok(hangA.received.length + hangB.received.length >= 64);
        await emitEvent(ctx(), c, clock);
        const waited = await waitFor(() => ok.received.length > 0, attemptTimeoutMs);
        assert.equal(ok.received.length, 1, 'the healthy endpoint got its event');
        assert.ok(waited < attemptTimeoutMs / 2, `healthy delivery waited ${Math.round(waited)} ms`);
        assert.ok(
          hangA.received.length + hangB.received.length <= 256 - 64,
          `hanging endpoints took ${hangA.received.length + hangB.received.length} slots`,
        );
      } finally {
        await hangA.close();
        await hangB.close();
        await worker.stop();
      }
    });

    test('failing endpoints together get at most a quarter of a claim; healthy ones are claimed beside them', async () => {
      const a = await seedTenant(ctx(), { rosterSecret: false });
      const b = await seedTenant(ctx(), { rosterSecret: false });
      const failing = await addEndpoint(ctx(), a, { url: 'http://127.0.0.1:9/failing' });
      const healthy = await addEndpoint(ctx(), b, { url: 'http://127.0.0.1:9/healthy' });
      const clock = testClock();
      for (let i = 0; i < 300; i++) await emitEvent(ctx(), a, clock);
      for (let i = 0; i < 3; i++) await emitEvent(ctx(), b, clock);
      await ctx().db.query('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1', [
        failing.id,
        clock.now(),
      ]);
      await withWorker(
        ctx(),
        a,
        clock,
        async (worker) => {
          const claimed = await worker.claim(256);
          const count = (id: string) => claimed.filter((c) => c.endpoint_id === id).length;
          assert.equal(count(failing.id), 64, 'a quarter of 256 for the failing endpoint');
          assert.equal(count(healthy.id), 3, 'every due delivery of the healthy endpoint');
        },
        { institutionIds: [a.institutionId, b.institutionId] },
      );
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
