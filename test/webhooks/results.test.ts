import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, workerFor } from '../helpers/webhooks.ts';

const receivers: Receiver[] = [];
const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function endpointRow(ctx: TestContext, id: string) {
  const { rows } = await ctx.db.query<{
    enabled: boolean;
    disabled_reason: string | null;
    failing_since: Date | null;
  }>('SELECT enabled, disabled_reason, failing_since FROM webhook_endpoints WHERE id = $1', [id]);
  return rows[0];
}

describeEachDatabase(
  'webhook results and endpoint state',
  (ctx) => {
    test('a late result whose lease was taken over changes neither the delivery nor the endpoint', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver({ status: 410 });
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      const late = workerFor(ctx(), tenant, clock, { leaseMs: 60_000 });
      const current = workerFor(ctx(), tenant, clock, { leaseMs: 60_000 });
      try {
        const stale = await late.claim(10);
        assert.equal(stale.length, 1);
        clock.advance(60_001); // the lease expires and another worker takes the delivery over
        const fresh = await current.claim(10);
        assert.equal(fresh.length, 1);
        // The first worker's attempt finally ends with 410 Gone: too late to count.
        assert.deepEqual((await late.deliver(stale)).outcomes, { http_error: 1 });
        let row = await endpointRow(ctx(), endpoint.id);
        assert.equal(row.enabled, true, 'a stale 410 does not disable the endpoint');
        assert.equal(row.failing_since, null, 'a stale failure does not start a failing run');
        const { rows: log } = await ctx().db.query<{ status_code: number }>(
          'SELECT status_code FROM webhook_attempts WHERE event_id = $1',
          [event.id],
        );
        assert.deepEqual(
          log.map((l) => l.status_code),
          [410],
          'the stale attempt is still logged',
        );
        r.behaviour = { status: 200 };
        assert.deepEqual((await current.deliver(fresh)).outcomes, { success: 1 });
        row = await endpointRow(ctx(), endpoint.id);
        assert.equal(row.enabled, true);
        const { rows } = await ctx().db.query<{ state: string }>(
          'SELECT state FROM webhook_deliveries WHERE event_id = $1',
          [event.id],
        );
        assert.equal(rows[0]?.state, 'succeeded');
      } finally {
        await late.close();
        await current.close();
      }
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
