// The idle delivery worker (src/domain/webhooks/delivery/continuous.ts): once a claim has found
// nothing, each poll reads the due index for one row and claims only when something is due, so an
// idle worker does not plan and run the whole claim twenty times a second; an event recorded
// while it idles is still delivered within a poll. Like the claim, the poll passes over an
// archived institution's deliveries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { startReceiver } from '../helpers/receiver.ts';
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

describeEachDatabase(
  'the idle webhook worker',
  (ctx) => {
    test('polls the due index instead of claiming, and delivers what falls due', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const receiver = await startReceiver();
      await addEndpoint(ctx(), tenant, { url: receiver.url });
      const clock = { now: () => new Date() };
      const { counts, db } = counting(ctx().db);
      const worker = workerFor(ctx(), tenant, clock, { db, idlePollMs: 10 });
      worker.start();
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(counts.claims, 1, 'one claim found nothing; the polls after it claim nothing');
        assert.ok(counts.polls >= 5, `the idle worker polled the due index (${counts.polls} times)`);

        await emitEvent(ctx(), tenant, clock);
        const started = performance.now();
        while (receiver.received.length === 0) {
          assert.ok(performance.now() - started < 5_000, 'the event was delivered');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.ok(counts.claims >= 2, 'a due delivery was claimed');
      } finally {
        await worker.stop();
        await receiver.close();
      }
    });

    test("an archived institution's due delivery keeps the worker polling, not claiming, until restored", async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const receiver = await startReceiver();
      await addEndpoint(ctx(), tenant, { url: receiver.url });
      const clock = { now: () => new Date() };
      await emitEvent(ctx(), tenant, clock);
      const archived = (at: string | null) =>
        ctx().db.query('UPDATE institutions SET archived_at = $2 WHERE id = $1', [tenant.institutionId, at]);
      await archived(new Date().toISOString());
      const { counts, db } = counting(ctx().db);
      const worker = workerFor(ctx(), tenant, clock, { db, idlePollMs: 10 });
      worker.start();
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(counts.claims, 1, 'the due delivery is not claimable, and the polls know it');
        assert.ok(counts.polls >= 5, `the idle worker polled the due index (${counts.polls} times)`);
        assert.equal(receiver.received.length, 0);

        await archived(null);
        const started = performance.now();
        while (receiver.received.length === 0) {
          assert.ok(performance.now() - started < 5_000, 'delivered once the institution was restored');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await worker.stop();
        await receiver.close();
      }
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
