// Lease renewal (a heartbeat) while an attempt runs: a short lease never hands a live owner's
// delivery to another worker, and an owner whose lease is taken, or whose renewals do not go
// through, stops and records nothing but its attempt line. The lease's time is the injected
// clock; the renewal period is real time (100-300 ms here).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { createWebhookWorker } from '../../src/workers/webhook-delivery.ts';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, type TestClock, testClock, workerFor } from '../helpers/webhooks.ts';

const receiver = receiverPool();

/**
 * A tenant whose one endpoint never answers, an event for it, and the worker that will own its
 * attempt, with the given lease timings.
 */
async function hangingAttempt(ctx: TestContext, lease: { leaseMs: number; renewEveryMs: number }) {
  const tenant = await seedTenant(ctx, { rosterSecret: false });
  const r = await receiver('hang');
  const endpoint = await addEndpoint(ctx, tenant, { url: r.url });
  const clock = testClock();
  const event = await emitEvent(ctx, tenant, clock);
  const owner = workerFor(ctx, tenant, clock, { ...lease, attemptTimeoutMs: 20_000 });
  return { tenant, r, endpoint, clock, event, owner };
}

/** Waits (real time, polling) until `done()`; fails after `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function deliveryRow(ctx: TestContext, eventId: string) {
  const { rows } = await ctx.db.query<{
    state: string;
    attempts: number;
    lease_token: string | null;
    lease_until: Date | null;
    last_error: string | null;
  }>(
    'SELECT state, attempts, lease_token, lease_until, last_error FROM webhook_deliveries WHERE event_id = $1',
    [eventId],
  );
  return rows[0];
}

/**
 * Three steps of 6 s of the clock: at each, the owner renews its lease past the clock (`what`
 * names the wait) and the second worker `other` claims nothing; `each` checks more after a step.
 */
async function renewedPastTheClock(
  ctx: TestContext,
  clock: TestClock,
  eventId: string,
  other: ReturnType<typeof workerFor>,
  what: string,
  each: () => void = () => {},
): Promise<void> {
  for (let step = 1; step <= 3; step++) {
    clock.advance(6_000);
    await until(
      async () => ((await deliveryRow(ctx, eventId))?.lease_until?.getTime() ?? 0) > clock.now().getTime(),
      2_000,
      `${what} (step ${step})`,
    );
    assert.deepEqual(await other.claim(10), [], `not claimed by the second worker (step ${step})`);
    each();
  }
}

describeEachDatabase(
  'webhook delivery leases',
  (ctx) => {
    test('a slow attempt, longer than the lease, is not claimed by a second worker while its owner is alive and renewing', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver('hang');
      await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      const leaseMs = 10_000;
      const owner = workerFor(ctx(), tenant, clock, { leaseMs, renewEveryMs: 100, attemptTimeoutMs: 4_000 });
      const other = workerFor(ctx(), tenant, clock, { leaseMs });
      let settled = false;
      const delivering = owner.runOnce().finally(() => {
        settled = true;
      });
      try {
        await until(() => r.received.length === 1, 3_000, 'the owner to post');
        // 3 x 6 s of the clock: without renewals the lease (10 s) would have expired twice over.
        await renewedPastTheClock(ctx(), clock, event.id, other, 'the owner to renew its lease', () =>
          assert.equal(settled, false, 'the attempt is still running'),
        );
      } finally {
        await r.close(); // the attempt ends (the connection closes)
        await delivering;
        await owner.close();
        await other.close();
      }
      assert.equal(r.received.length, 1, 'delivered by one worker only');
      const row = await deliveryRow(ctx(), event.id);
      assert.equal(row.attempts, 1);
      assert.equal(row.lease_token, null, "the owner's result was recorded");
    });

    test('an owner that finds its lease taken abandons the attempt at its next renewal and records only its attempt line', async () => {
      const { r, endpoint, clock, event, owner } = await hangingAttempt(ctx(), {
        leaseMs: 10_000,
        renewEveryMs: 100,
      });
      try {
        const delivering = owner.drain();
        await until(() => r.received.length === 1, 3_000, 'the owner to post');
        // What another worker's claim does once a lease has expired: a new token, a new expiry.
        const { rows } = await ctx().db.query<{ lease_token: string }>(
          `UPDATE webhook_deliveries SET lease_token = gen_random_uuid(), lease_until = $2, next_attempt_at = $2
           WHERE event_id = $1 RETURNING lease_token`,
          [event.id, new Date(clock.now().getTime() + 10_000)],
        );
        const started = performance.now();
        assert.deepEqual(await delivering, { claimed: 1, outcomes: { timeout: 1 } });
        const waited = performance.now() - started;
        assert.ok(
          waited < 5_000,
          `abandoned after ${Math.round(waited)} ms, long before the attempt timeout`,
        );
        const row = await deliveryRow(ctx(), event.id);
        assert.equal(row.state, 'pending');
        assert.equal(row.lease_token, rows[0].lease_token, "the new owner's lease is untouched");
        assert.equal(row.last_error, null, 'no result recorded on the delivery');
        const { rows: log } = await ctx().db.query<{ outcome: string; error: string }>(
          'SELECT outcome, error FROM webhook_attempts WHERE endpoint_id = $1',
          [endpoint.id],
        );
        assert.equal(log.length, 1);
        assert.match(log[0].error, /^abandoned: /);
        const { rows: health } = await ctx().db.query<{ failing_since: Date | null; enabled: boolean }>(
          'SELECT failing_since, enabled FROM webhook_endpoints WHERE id = $1',
          [endpoint.id],
        );
        assert.deepEqual(
          health,
          [{ failing_since: null, enabled: true }],
          'the endpoint health is untouched',
        );
      } finally {
        await owner.close();
      }
    });

    test('an owner whose renewals do not go through abandons the attempt before its lease can expire, and records only its attempt line', async () => {
      // Real time here: the owner gives up after leaseMs - renewEveryMs = 700 ms without a renewal.
      const { r, endpoint, event, owner } = await hangingAttempt(ctx(), {
        leaseMs: 1_000,
        renewEveryMs: 300,
      });
      try {
        const delivering = owner.runOnce();
        await until(() => r.received.length === 1, 3_000, 'the owner to post');
        const { rows: before } = await ctx().db.query<{ lease_token: string }>(
          'SELECT lease_token FROM webhook_deliveries WHERE event_id = $1',
          [event.id],
        );
        // The row is locked elsewhere for longer than the lease: no renewal goes through (on
        // PostgreSQL the renewal skips it; on PGlite, one connection, the renewal waits).
        await ctx().db.transaction(async (tx) => {
          await tx.query('SELECT 1 FROM webhook_deliveries WHERE event_id = $1 FOR UPDATE', [event.id]);
          await new Promise((resolve) => setTimeout(resolve, 1_500));
        });
        assert.deepEqual(await delivering, { claimed: 1, outcomes: { timeout: 1 } });
        const row = await deliveryRow(ctx(), event.id);
        assert.equal(row.state, 'pending');
        assert.equal(row.lease_token, before[0].lease_token, 'the lease is left to expire');
        assert.equal(
          row.last_error,
          null,
          'no result recorded on the delivery, although the token still matches',
        );
        const { rows: log } = await ctx().db.query<{ error: string }>(
          'SELECT error FROM webhook_attempts WHERE endpoint_id = $1',
          [endpoint.id],
        );
        assert.equal(log.length, 1);
        assert.match(log[0].error, /^abandoned: no lease renewal for \d+ ms$/);
      } finally {
        await owner.close();
      }
    });

    test('a sent delivery whose result waits to be recorded keeps its lease: no second worker sends it again', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver({ status: 200 });
      await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      // The owner's first transaction is the recording of its results: held until let go.
      let letGo!: () => void;
      const gate = new Promise<void>((resolve) => {
        letGo = resolve;
      });
      let held = false;
      const db = ctx().db;
      const slowDb: Db = {
        ...db,
        query: (sql, params) => db.query(sql, params),
        transaction: async (fn) => {
          if (!held) {
            held = true;
            await gate;
          }
          return db.transaction(fn);
        },
      };
      const leaseMs = 10_000;
      const owner = createWebhookWorker({
        db: slowDb,
        clock,
        policy: { allowLoopback: true },
        keyring: ctx().deps.keyring,
        institutionIds: [tenant.institutionId],
        attemptTimeoutMs: 5_000,
        leaseMs,
        renewEveryMs: 100,
      });
      const other = workerFor(ctx(), tenant, clock, { leaseMs });
      const delivering = owner.runOnce();
      try {
        await until(() => r.received.length === 1 && held, 3_000, 'the owner to post and start recording');
        // 3 x 6 s of the clock while the result waits: without renewals the lease would expire.
        await renewedPastTheClock(
          ctx(),
          clock,
          event.id,
          other,
          'the owner to renew its lease while recording',
        );
      } finally {
        letGo();
        await delivering;
        await owner.close();
        await other.close();
      }
      assert.equal(r.received.length, 1, 'sent once');
      const row = await deliveryRow(ctx(), event.id);
      assert.equal(row.state, 'succeeded');
      assert.equal(row.attempts, 1);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
