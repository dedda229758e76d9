// The idle delivery worker (src/domain/webhooks/delivery/continuous.ts): once a claim has found
// nothing, each poll reads the due index for one row and claims only when something is due, so an
// idle worker does not plan and run the whole claim twenty times a second; an event recorded
// while it idles is still delivered within a poll. Like the claim, the poll passes over an
// archived institution's deliveries. On the embedded database, which tells its commits, an idle
// worker polls after a transaction commits and otherwise seldom (`quietPollMs`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { redeliverEvent } from '../../src/domain/webhooks/deliveries.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { describeEachDatabase, type SeededTenant, seedTenant } from '../helpers/app.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, workerFor } from '../helpers/webhooks.ts';

/** The database, counting the worker's claims (the claim's UPDATE) and its polls of the due index. */
function counting(db: Db) {
  const counts = { claims: 0, polls: 0 };
  const counted: Db = {
    ...db,
    kind: db.kind,
    query(sql, params) {
      if (sql.includes('SET lease_token = $3')) counts.claims++;
      if (sql.startsWith('SELECT EXISTS') && sql.includes('webhook_deliveries')) counts.polls++;
      return db.query(sql, params);
    },
  };
  return { counts, db: counted };
}

/** Waits for the receiver's `count`th request, at most 5 s. */
async function untilReceived(receiver: Receiver, what: string, count = 1): Promise<void> {
  const started = performance.now();
  while (receiver.received.length < count) {
    assert.ok(performance.now() - started < 5_000, what);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describeEachDatabase(
  'the idle webhook worker',
  (ctx) => {
    /**
     * A tenant with an endpoint at a local receiver, `before` run on it, then a worker polling
     * every 10 ms through the counting database (on the embedded database too, unless `quietPollMs`
     * says otherwise), left to idle for 300 ms; `steps` run, then the worker and the receiver are
     * stopped whatever happened.
     */
    async function withIdleWorker(
      options: { before?: (tenant: SeededTenant, clock: Clock) => Promise<unknown>; quietPollMs?: number },
      steps: (idle: {
        tenant: SeededTenant;
        clock: Clock;
        receiver: Receiver;
        counts: { claims: number; polls: number };
        endpoint: { id: string };
      }) => Promise<void>,
    ): Promise<void> {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const receiver = await startReceiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: receiver.url });
      const clock = { now: () => new Date() };
      await options.before?.(tenant, clock);
      const { counts, db } = counting(ctx().db);
      const worker = workerFor(ctx(), tenant, clock, {
        db,
        idlePollMs: 10,
        quietPollMs: options.quietPollMs ?? 10,
      });
      worker.start();
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        await steps({ tenant, clock, receiver, counts, endpoint });
      } finally {
        await worker.stop();
        await receiver.close();
      }
    }

    test('polls the due index instead of claiming, and delivers what falls due', async () => {
      await withIdleWorker({}, async ({ tenant, clock, receiver, counts }) => {
        assert.equal(counts.claims, 1, 'one claim found nothing; the polls after it claim nothing');
        assert.ok(counts.polls >= 5, `the idle worker polled the due index (${counts.polls} times)`);

        await emitEvent(ctx(), tenant, clock);
        await untilReceived(receiver, 'the event was delivered');
        assert.ok(counts.claims >= 2, 'a due delivery was claimed');
      });
    });

    test('on the embedded database an idle worker polls when a transaction commits, and seldom else', async () => {
      await withIdleWorker({ quietPollMs: 60_000 }, async ({ tenant, clock, receiver, counts }) => {
        if (!ctx().db.commits) {
          // PostgreSQL is written to by other processes too: the worker polls every idlePollMs.
          assert.ok(counts.polls >= 5, `the idle worker polled every 10 ms (${counts.polls} times)`);
          return;
        }
        assert.ok(counts.polls <= 1, `no commit, no poll within the minute (${counts.polls} polls)`);

        const committed = performance.now();
        await emitEvent(ctx(), tenant, clock);
        await untilReceived(receiver, 'the event was delivered after its commit, not a minute later');
        assert.ok(performance.now() - committed < 2_000, 'delivered within two seconds of the commit');
        assert.ok(counts.claims >= 2, 'the due delivery was claimed');
      });
    });

    test('a redelivery asked for while the worker idles goes out at once', async () => {
      await withIdleWorker({ quietPollMs: 60_000 }, async ({ tenant, clock, receiver, endpoint }) => {
        const event = await emitEvent(ctx(), tenant, clock);
        await untilReceived(receiver, 'the event was delivered');
        const asked = performance.now();
        await redeliverEvent(ctx().deps, tenant.institutionId, endpoint.id, event.id);
        await untilReceived(receiver, 'the redelivery was sent', 2);
        assert.ok(performance.now() - asked < 2_000, 'sent within two seconds, not a minute later');
      });
    });

    test("an archived institution's due delivery keeps the worker polling, not claiming, until restored", async () => {
      const archived = (tenant: SeededTenant, at: string | null) =>
        ctx().db.query('UPDATE institutions SET archived_at = $2 WHERE id = $1', [tenant.institutionId, at]);
      const before = async (tenant: SeededTenant, clock: Clock) => {
        await emitEvent(ctx(), tenant, clock);
        await archived(tenant, new Date().toISOString());
      };
      await withIdleWorker({ before }, async ({ tenant, receiver, counts }) => {
        assert.equal(counts.claims, 1, 'the due delivery is not claimable, and the polls know it');
        assert.ok(counts.polls >= 5, `the idle worker polled the due index (${counts.polls} times)`);
        assert.equal(receiver.received.length, 0);

        await archived(tenant, null);
        await untilReceived(receiver, 'delivered once the institution was restored');
      });
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
