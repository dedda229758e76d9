// Claiming ahead (src/domain/webhooks/delivery/continuous.ts, ready.ts): the continuous worker
// claims beyond its free attempt slots and keeps those deliveries under their leases until a
// slot frees, never exceeding the limits on attempts in flight; a stopping worker gives back
// what is still waiting (due at once, the attempt uncounted) instead of letting the leases run out.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { addEndpoint, emitEvent, workerFor } from '../helpers/webhooks.ts';

/** A receiver answering 204 after `delayMs`, counting requests and the most open at once. */
async function slowReceiver(delayMs: number) {
  const state = { url: '', received: 0, open: 0, mostOpen: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      state.open++;
      state.mostOpen = Math.max(state.mostOpen, state.open);
      setTimeout(() => {
        state.open--;
        res.writeHead(204).end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { state, close };
}

async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describeEachDatabase(
  'webhook claims ahead',
  (ctx) => {
    test('a worker claims ahead of its free slots within its limits, and gives back what waits when it stops', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await slowReceiver(400);
      await addEndpoint(ctx(), tenant, { url: r.state.url });
      const clock = { now: () => new Date() };
      for (let i = 0; i < 20; i++) await emitEvent(ctx(), tenant, clock);
      const worker = workerFor(ctx(), tenant, clock, {
        concurrency: 8,
        perEndpointConcurrency: 4,
        fairShare: 2,
        overflowShare: 4,
        claimAhead: 4,
        idlePollMs: 10,
      });
      const leased = async () => {
        const { rows } = await ctx().db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_deliveries WHERE institution_id = $1 AND lease_token IS NOT NULL',
          [tenant.institutionId],
        );
        return rows[0].n;
      };
      worker.start();
      try {
        await until(() => r.state.received >= 4, 3_000, 'the first attempts');
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(r.state.received, 4, 'at most 4 attempts for the endpoint at once');
        assert.equal(await leased(), 8, '4 in flight and 4 claimed ahead, under their leases');
      } finally {
        await worker.stop();
        await r.close();
      }
      assert.equal(r.state.mostOpen, 4);
      const { rows } = await ctx().db.query<{ state: string; attempts: number; leased: boolean; n: number }>(
        `SELECT state, attempts, lease_token IS NOT NULL AS leased, count(*)::int AS n FROM webhook_deliveries
         WHERE institution_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2`,
        [tenant.institutionId],
      );
      assert.deepEqual(
        rows.map((row) => ({ ...row })),
        [
          // The 4 waiting given back and the 12 never claimed: due, attempt count 0.
          { state: 'pending', attempts: 0, leased: false, n: 16 },
          { state: 'succeeded', attempts: 1, leased: false, n: 4 },
        ],
      );
      const due = await ctx().db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries
         WHERE institution_id = $1 AND state = 'pending' AND next_attempt_at <= now()`,
        [tenant.institutionId],
      );
      assert.equal(due.rows[0].n, 16, 'due again at once');
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
