import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, withWorker, workerFor } from '../helpers/webhooks.ts';

const receiver = receiverPool();

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

    test('quiet days without events do not count as failing: the run restarts after a gap', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver({ status: 500 });
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      await withWorker(ctx(), tenant, clock, async (worker) => {
        const started = clock.now();
        // Day 0: one event fails on every attempt for about a day, then is given up.
        await emitEvent(ctx(), tenant, clock);
        await worker.drain();
        for (let i = 0; i < 20; i++) {
          const due = await ctx().db.query<{ next_attempt_at: Date }>(
            "SELECT next_attempt_at FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'pending'",
            [endpoint.id],
          );
          if (!due.rows[0]) break;
          clock.set(due.rows[0].next_attempt_at);
          await worker.drain();
        }
        const { rows } = await ctx().db.query<{ state: string }>(
          'SELECT state FROM webhook_deliveries WHERE endpoint_id = $1',
          [endpoint.id],
        );
        assert.deepEqual(
          rows.map((row) => row.state),
          ['failed'],
        );
        assert.ok((await endpointRow(ctx(), endpoint.id)).failing_since);
        // Days of silence, then on day 5 one transient 503.
        clock.set(new Date(started.getTime() + 5 * DAY + HOUR));
        r.behaviour = { status: 503 };
        await emitEvent(ctx(), tenant, clock);
        assert.deepEqual((await worker.runOnce()).outcomes, { http_error: 1 });
        const row = await endpointRow(ctx(), endpoint.id);
        assert.equal(row.enabled, true, `disabled: ${row.disabled_reason}`);
        assert.equal(row.failing_since?.getTime(), clock.now().getTime(), 'a new failing run starts now');
      });
    });

    test('endpoints disabled together have their pending deliveries failed, each with its reason', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const gone1 = await receiver({ status: 410 });
      const gone2 = await receiver({ status: 410 });
      const e1 = await addEndpoint(ctx(), tenant, { url: gone1.url });
      const e2 = await addEndpoint(ctx(), tenant, { url: gone2.url });
      const clock = testClock();
      await emitEvent(ctx(), tenant, clock);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        const claimed = await worker.claim(10);
        assert.equal(claimed.length, 2);
        const later = await emitEvent(ctx(), tenant, clock); // pending for both while the first is in flight
        assert.deepEqual((await worker.deliver(claimed)).outcomes, { http_error: 2 });
        for (const e of [e1, e2]) assert.equal((await endpointRow(ctx(), e.id)).enabled, false);
        const { rows } = await ctx().db.query<{ endpoint_id: string; state: string; last_error: string }>(
          'SELECT endpoint_id, state, last_error FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id',
          [later.id],
        );
        assert.equal(rows.length, 2);
        for (const row of rows) {
          assert.equal(row.state, 'failed');
          assert.equal(row.last_error, 'endpoint disabled: the endpoint answered 410 Gone');
        }
      });
    });

    test("pruning and replay go by the event's time, not the delivery's", async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const ok = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: ok.url });
      const now = new Date();
      const clock = testClock(new Date(now.getTime() - 40 * DAY));
      const old = await emitEvent(ctx(), tenant, clock); // recorded 40 days ago, delivered now
      await withWorker(ctx(), tenant, clock, async (worker) => {
        assert.deepEqual((await worker.drain()).outcomes, { success: 1 });
        clock.set(now);
        assert.equal(await worker.prune(), 1, 'the default 30-day retention counts from the event');
      });
      const { rows } = await ctx().db.query('SELECT 1 FROM webhook_deliveries WHERE event_id = $1', [old.id]);
      assert.equal(rows.length, 0);

      // Replay: an event recorded two hours ago and one recorded now, both failed.
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`;
      await emitEvent(ctx(), tenant, testClock(new Date(now.getTime() - 2 * HOUR)));
      await emitEvent(ctx(), tenant, testClock(now));
      assert.equal((await ctx().admin('POST', `${base}/disable`, {})).statusCode, 200);
      assert.equal((await ctx().admin('PATCH', base, { enabled: true })).statusCode, 200);
      const replay = await ctx().admin('POST', `${base}/replay`, {
        since: new Date(now.getTime() - HOUR).toISOString(),
      });
      assert.equal(replay.statusCode, 202);
      assert.equal(replay.json().requeued, 1, 'only the event recorded since then');
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
