import assert from 'node:assert/strict';
import dns from 'node:dns';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/domain/webhooks/schedule.ts';
import { generateWebhookSecret } from '../../src/domain/webhooks/signing.ts';
import { describeEachDatabase, METRICS_TOKEN, seedTenant, type TestContext } from '../helpers/app.ts';
import { receiverPool, startReceiver } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, withWorker, workerFor } from '../helpers/webhooks.ts';

const receiver = receiverPool();

const HOUR = 3_600_000;

async function delivery(ctx: TestContext, eventId: string, endpointId: string) {
  const { rows } = await ctx.db.query<{
    state: string;
    attempts: number;
    next_attempt_at: Date;
    last_status: number | null;
    last_error: string | null;
  }>(
    'SELECT state, attempts, next_attempt_at, last_status, last_error FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2',
    [eventId, endpointId],
  );
  return rows[0];
}

describeEachDatabase(
  'webhook delivery',
  (ctx) => {
    test('delivers a signed Standard Webhooks request that the reference verifier accepts', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock, {
        type: 'help_request.updated',
        data: {
          status: 'ack',
          external_ref: 'INC-42',
          origin: 'integration',
          actor: 'ServiceNow',
          version: 3,
        },
      });
      await withWorker(ctx(), tenant, clock, async (worker) => {
        const summary = await worker.drain();
        assert.deepEqual(summary, { claimed: 1, outcomes: { success: 1 } });
      });
      assert.equal(r.received.length, 1);
      const got = r.received[0];
      assert.equal(got.headers['webhook-id'], event.id);
      assert.equal(got.headers['webhook-timestamp'], String(Math.floor(clock.now().getTime() / 1000)));
      assert.match(got.headers['webhook-signature'] as string, /^v1,[A-Za-z0-9+/]+=*$/);
      assert.equal(got.headers['content-type'], 'application/json');
      const payload = new Webhook(endpoint.secret).verify(
        got.body,
        got.headers as Record<string, string>,
      ) as {
        type: string;
        timestamp: string;
        data: Record<string, unknown>;
      };
      assert.equal(payload.type, 'help_request.updated');
      assert.equal(payload.timestamp, clock.now().toISOString());
      assert.deepEqual(payload.data, event.data);
      assert.equal(payload.data.external_ref, 'INC-42');
      assert.equal(payload.data.origin, 'integration');
      // A wrong secret does not verify.
      const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      assert.throws(() => new Webhook(other).verify(got.body, got.headers as Record<string, string>));

      const d = await delivery(ctx(), event.id, endpoint.id);
      assert.equal(d.state, 'succeeded');
      assert.equal(d.attempts, 1);
      assert.equal(d.last_status, 200);
      const log = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}/attempts`,
      );
      assert.equal(log.json().items.length, 1);
      assert.equal(log.json().items[0].outcome, 'success');
      assert.equal(log.json().items[0].status_code, 200);
      assert.equal(typeof log.json().items[0].duration_ms, 'number');
    });

    test('fans out to matching enabled endpoints of the same institution only', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const stranger = await seedTenant(ctx(), { rosterSecret: false });
      const all = await receiver();
      const crisisOnly = await receiver();
      const disabled = await receiver();
      const otherInstitution = await receiver();
      await addEndpoint(ctx(), tenant, { url: all.url });
      await addEndpoint(ctx(), tenant, { url: crisisOnly.url, event_types: ['help_request.crisis'] });
      await addEndpoint(ctx(), tenant, { url: disabled.url, enabled: false });
      await addEndpoint(ctx(), stranger, { url: otherInstitution.url });
      const clock = testClock();
      await emitEvent(ctx(), tenant, clock, { type: 'help_request.created' });
      await emitEvent(ctx(), tenant, clock, { type: 'help_request.crisis', data: { priority: 'crisis' } });
      const worker = workerFor(ctx(), tenant, clock);
      const strangerWorker = workerFor(ctx(), stranger, clock);
      try {
        await worker.drain();
        await strangerWorker.drain();
      } finally {
        await worker.close();
        await strangerWorker.close();
      }
      assert.equal(all.received.length, 2);
      assert.equal(crisisOnly.received.length, 1);
      assert.equal(JSON.parse(crisisOnly.received[0].body).type, 'help_request.crisis');
      assert.equal(disabled.received.length, 0);
      assert.equal(otherInstitution.received.length, 0);
    });

    test('an event whose transaction rolls back is never delivered', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      await assert.rejects(
        ctx().db.transaction(async (tx) => {
          const { recordEvent } = await import('../../src/domain/events/record.ts');
          await recordEvent(tx, {
            institutionId: tenant.institutionId,
            type: 'help_request.created',
            data: { help_request_id: crypto.randomUUID() },
            occurredAt: clock.now(),
          });
          throw new Error('change failed');
        }),
      );
      const { rows } = await ctx().db.query('SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1', [
        endpoint.id,
      ]);
      assert.equal(rows.length, 0);
    });

    test('retries 5xx with backoff, same webhook-id, fresh timestamp; gives up after a day; replay recovers', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver({ status: 500 });
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        await worker.drain();
        let d = await delivery(ctx(), event.id, endpoint.id);
        assert.equal(d.state, 'pending');
        assert.equal(d.attempts, 1);
        assert.equal(d.last_status, 500);
        // random() = 0.5 means no jitter: exactly the first delay.
        assert.equal(d.next_attempt_at.getTime() - clock.now().getTime(), RETRY_DELAYS_MS[0]);
        // Not due yet: nothing happens.
        clock.advance(RETRY_DELAYS_MS[0] - 1_000);
        assert.equal((await worker.drain()).claimed, 0);
        clock.advance(1_000);
        assert.equal((await worker.drain()).claimed, 1);
        assert.equal(r.received.length, 2);
        assert.equal(r.received[1].headers['webhook-id'], event.id);
        assert.notEqual(
          r.received[1].headers['webhook-timestamp'],
          r.received[0].headers['webhook-timestamp'],
        );
        // Every later attempt follows the schedule, then the delivery fails for good.
        for (let attempt = 2; attempt < MAX_ATTEMPTS; attempt++) {
          clock.advance(RETRY_DELAYS_MS[attempt - 1]);
          assert.equal((await worker.drain()).claimed, 1, `attempt ${attempt + 1}`);
        }
        d = await delivery(ctx(), event.id, endpoint.id);
        assert.equal(d.state, 'failed');
        assert.equal(d.attempts, MAX_ATTEMPTS);
        assert.equal(r.received.length, MAX_ATTEMPTS);
        clock.advance(30 * HOUR);
        assert.equal((await worker.drain()).claimed, 0);

        // The endpoint recovers; the admin replays everything failed since an hour before the event.
        r.behaviour = { status: 204 };
        const since = new Date(Date.now() - HOUR).toISOString();
        const replay = await ctx().admin(
          'POST',
          `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}/replay`,
          { since },
        );
        assert.equal(replay.statusCode, 202);
        assert.equal(replay.json().requeued, 1);
        await worker.drain();
        d = await delivery(ctx(), event.id, endpoint.id);
        assert.equal(d.state, 'succeeded');
        assert.equal(r.received.at(-1)?.headers['webhook-id'], event.id);
      });
      const perEvent = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/events/${event.id}/deliveries`,
      );
      assert.equal(perEvent.statusCode, 200);
      const log = perEvent.json().deliveries[0].attempt_log;
      assert.equal(log.length, MAX_ATTEMPTS + 1);
      assert.equal(log[0].status_code, 500);
      assert.equal(log.at(-1).status_code, 204);
    });

    test('a hanging endpoint times out without delaying another endpoint', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const hang = await receiver('hang');
      const fine = await receiver();
      const hanging = await addEndpoint(ctx(), tenant, { url: hang.url });
      await addEndpoint(ctx(), tenant, { url: fine.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      const worker = workerFor(ctx(), tenant, clock, { attemptTimeoutMs: 1_000 });
      const started = performance.now();
      try {
        const summary = await worker.drain();
        assert.deepEqual(summary.outcomes, { success: 1, timeout: 1 });
      } finally {
        await worker.close();
      }
      assert.ok(performance.now() - started >= 1_000);
      assert.equal(fine.received.length, 1);
      assert.ok(fine.received[0].at - started < 800, 'the healthy endpoint was served while the other hung');
      const d = await delivery(ctx(), event.id, hanging.id);
      assert.equal(d.state, 'pending');
      assert.match(d.last_error ?? '', /1000 ms/);
      const attempts = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${hanging.id}/attempts`,
      );
      assert.equal(attempts.json().items[0].outcome, 'timeout');
      assert.equal(attempts.json().items[0].status_code, null);
    });

    test('connection errors are retried', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await startReceiver();
      await r.close(); // nothing listens on this port any more
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        assert.deepEqual((await worker.drain()).outcomes, { connection_error: 1 });
      });
      const d = await delivery(ctx(), event.id, endpoint.id);
      assert.equal(d.state, 'pending');
      assert.match(d.last_error ?? '', /ECONNREFUSED/);
    });

    test('410 Gone disables the endpoint with a visible reason and stops its other deliveries', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver((_received, index) => (index === 0 ? { status: 410 } : { status: 200 }));
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const first = await emitEvent(ctx(), tenant, clock);
      await withWorker(
        ctx(),
        tenant,
        clock,
        async (worker) => {
          await worker.runOnce();
          const second = await emitEvent(ctx(), tenant, clock); // not fanned out: endpoint disabled
          await worker.drain();
          assert.equal(r.received.length, 1);
          assert.equal((await delivery(ctx(), first.id, endpoint.id)).state, 'failed');
          assert.equal(await delivery(ctx(), second.id, endpoint.id), undefined);
        },
        { batchSize: 1 },
      );
      const read = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`,
      );
      assert.equal(read.json().enabled, false);
      assert.match(read.json().disabled_reason, /410/);
    });

    test('429 and 503 honour Retry-After', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const limited = await receiver({ status: 429, headers: { 'retry-after': '120' } });
      const unavailable = await receiver({ status: 503, headers: { 'retry-after': '7' } });
      const e1 = await addEndpoint(ctx(), tenant, { url: limited.url });
      const e2 = await addEndpoint(ctx(), tenant, { url: unavailable.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        await worker.drain();
        const d1 = await delivery(ctx(), event.id, e1.id);
        assert.equal(d1.last_status, 429);
        assert.equal(d1.next_attempt_at.getTime() - clock.now().getTime(), 120_000);
        const d2 = await delivery(ctx(), event.id, e2.id);
        assert.equal(d2.next_attempt_at.getTime() - clock.now().getTime(), 7_000);
        limited.behaviour = { status: 200 };
        unavailable.behaviour = { status: 200 };
        clock.advance(7_000);
        assert.equal((await worker.drain()).claimed, 1);
        clock.advance(113_000);
        assert.equal((await worker.drain()).claimed, 1);
      });
      assert.equal((await delivery(ctx(), event.id, e1.id)).state, 'succeeded');
      assert.equal((await delivery(ctx(), event.id, e2.id)).state, 'succeeded');
    });

    test('redirects are not followed and count as failures', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const target = await receiver();
      const redirecting = await receiver({ status: 307, headers: { location: target.url } });
      const endpoint = await addEndpoint(ctx(), tenant, { url: redirecting.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        assert.deepEqual((await worker.drain()).outcomes, { redirect: 1 });
      });
      assert.equal(target.received.length, 0);
      const d = await delivery(ctx(), event.id, endpoint.id);
      assert.equal(d.state, 'pending');
      assert.equal(d.last_status, 307);
    });

    test('a worker that dies mid-delivery loses nothing: the lease expires and another worker delivers', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      const dying = workerFor(ctx(), tenant, clock, { leaseMs: 60_000 });
      const survivor = workerFor(ctx(), tenant, clock, { leaseMs: 60_000 });
      try {
        const claimed = await dying.claim(10);
        assert.equal(claimed.length, 1); // ...and the process dies here, before sending
        assert.equal((await survivor.drain()).claimed, 0, 'leased rows are not claimed twice');
        clock.advance(59_000);
        assert.equal((await survivor.drain()).claimed, 0);
        clock.advance(1_001);
        assert.deepEqual(await survivor.drain(), { claimed: 1, outcomes: { success: 1 } });
      } finally {
        await dying.close();
        await survivor.close();
      }
      assert.equal(r.received.length, 1);
      assert.equal(r.received[0].headers['webhook-id'], event.id);
      const d = await delivery(ctx(), event.id, endpoint.id);
      assert.equal(d.state, 'succeeded');
      assert.equal(d.attempts, 2, 'the lost attempt is counted');
    });

    test("a worker that comes back after its lease expired cannot overwrite the new owner's result", async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver((_received, index) => (index === 0 ? { status: 200 } : { status: 500 }));
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      const slow = workerFor(ctx(), tenant, clock, { leaseMs: 60_000 });
      const other = workerFor(ctx(), tenant, clock, { leaseMs: 60_000 });
      try {
        const stale = await slow.claim(10); // e.g. paused for longer than its lease
        clock.advance(61_000);
        assert.deepEqual(await other.drain(), { claimed: 1, outcomes: { success: 1 } });
        // The slow worker wakes up and sends anyway (at least once: the receiver sees it twice,
        // with the same webhook-id); its failure must not undo the recorded success.
        await slow.deliver(stale);
      } finally {
        await slow.close();
        await other.close();
      }
      assert.equal(r.received.length, 2);
      assert.equal(r.received[1].headers['webhook-id'], event.id);
      const d = await delivery(ctx(), event.id, endpoint.id);
      assert.equal(d.state, 'succeeded');
      assert.equal(d.last_status, 200);
      const log = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/events/${event.id}/deliveries`,
      );
      assert.equal(log.json().deliveries[0].attempt_log.length, 2, 'both attempts are logged');
    });

    test('several workers share the queue: every event delivered exactly once', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const ids = new Set<string>();
      for (let i = 0; i < 60; i++) ids.add((await emitEvent(ctx(), tenant, clock)).id);
      const workers = [1, 2, 3].map(() => workerFor(ctx(), tenant, clock, { batchSize: 7 }));
      try {
        const summaries = await Promise.all(workers.map((w) => w.drain()));
        assert.equal(
          summaries.reduce((n, s) => n + s.claimed, 0),
          60,
        );
      } finally {
        await Promise.all(workers.map((w) => w.close()));
      }
      assert.equal(r.received.length, 60);
      assert.deepEqual(new Set(r.received.map((x) => x.headers['webhook-id'])), ids);
    });

    test('the continuous worker delivers soon after commit and stops cleanly', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = { now: () => new Date() };
      const worker = workerFor(ctx(), tenant, clock, { idlePollMs: 10 });
      worker.start();
      try {
        for (let i = 0; i < 5; i++) await emitEvent(ctx(), tenant, clock);
        const deadline = Date.now() + 5_000;
        while (r.received.length < 5 && Date.now() < deadline)
          await new Promise((res) => setTimeout(res, 10));
      } finally {
        await worker.stop();
      }
      assert.equal(r.received.length, 5);
      const { rows } = await ctx().db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE institution_id = $1 AND state = 'succeeded'",
        [tenant.institutionId],
      );
      assert.equal(rows[0].n, 5, 'results are recorded before stop() returns');
    });

    test('during a rotation window both signatures are sent; after it only the new one', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const rotated = await ctx().admin(
        'POST',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}/rotate-secret`,
      );
      const newSecret = rotated.json().secret as string;
      const clock = testClock();
      await emitEvent(ctx(), tenant, clock);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        await worker.drain();
        const first = r.received[0];
        const signatures = (first.headers['webhook-signature'] as string).split(' ');
        assert.equal(signatures.length, 2);
        const headers = first.headers as Record<string, string>;
        // A consumer holding either secret verifies the same request.
        new Webhook(newSecret).verify(first.body, headers);
        new Webhook(endpoint.secret).verify(first.body, headers);

        clock.advance(24 * HOUR + 1_000);
        await emitEvent(ctx(), tenant, clock);
        await worker.drain();
        const later = r.received[1];
        assert.equal((later.headers['webhook-signature'] as string).split(' ').length, 1);
      });
    });

    test('test event, manual redelivery, and the per-endpoint delivery log', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      const bystander = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      await addEndpoint(ctx(), tenant, { url: bystander.url });
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`;
      const sent = await ctx().admin('POST', `${base}/test`);
      assert.equal(sent.statusCode, 202);
      const clock = testClock(new Date(Date.now() + 1_000));
      await withWorker(ctx(), tenant, clock, async (worker) => {
        await worker.drain();
        assert.equal(r.received.length, 1);
        assert.equal(bystander.received.length, 0);
        const body = new Webhook(endpoint.secret).verify(
          r.received[0].body,
          r.received[0].headers as Record<string, string>,
        ) as {
          type: string;
        };
        assert.equal(body.type, 'webhook.test');
        assert.equal(r.received[0].headers['webhook-id'], sent.json().event_id);

        const event = await emitEvent(ctx(), tenant, clock);
        await worker.drain();
        assert.equal(r.received.length, 2);
        const again = await ctx().admin('POST', `${base}/redeliver`, { event_id: event.id });
        assert.equal(again.statusCode, 202);
        await worker.drain();
        assert.equal(r.received.length, 3);
        assert.equal(r.received[2].headers['webhook-id'], event.id);
        assert.equal(r.received[2].body, r.received[1].body, 'the same bytes are sent again');
        assert.equal(bystander.received.length, 1);
      });
      const deliveries = await ctx().admin('GET', `${base}/deliveries`);
      assert.equal(deliveries.statusCode, 200);
      assert.deepEqual(
        deliveries.json().items.map((d: { event_type: string; state: string }) => [d.event_type, d.state]),
        [
          ['help_request.created', 'succeeded'],
          ['webhook.test', 'succeeded'],
        ],
      );
      const notFound = await ctx().admin('POST', `${base}/redeliver`, {
        event_id: '00000000-0000-4000-8000-000000000000',
      });
      assert.equal(notFound.statusCode, 404);
      await ctx().admin('POST', `${base}/disable`, {});
      assert.equal((await ctx().admin('POST', `${base}/test`)).json().error, 'endpoint_disabled');
    });

    test('an endpoint failing without pause for 5 days is disabled, with the reason; a success resets the count', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver({ status: 500 });
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`;
      const clock = testClock();
      await withWorker(ctx(), tenant, clock, async (worker) => {
        // Day 0 to day 3: failing. Then one success resets the run.
        for (let day = 0; day < 4; day++) {
          await emitEvent(ctx(), tenant, clock);
          await worker.drain();
          clock.advance(24 * HOUR);
        }
        assert.ok((await ctx().admin('GET', base)).json().failing_since);
        r.behaviour = { status: 200 };
        await emitEvent(ctx(), tenant, clock);
        await worker.drain();
        assert.equal((await ctx().admin('GET', base)).json().failing_since, null);
        assert.equal((await ctx().admin('GET', base)).json().enabled, true);

        // Now failures every 12 hours for 5 days.
        r.behaviour = { status: 502 };
        for (let i = 0; i <= 10; i++) {
          await emitEvent(ctx(), tenant, clock);
          await worker.drain();
          clock.advance(12 * HOUR);
        }
      });
      const read = (await ctx().admin('GET', base)).json();
      assert.equal(read.enabled, false);
      assert.match(read.disabled_reason, /every delivery attempt has failed since .* \(5 days\)/);
      const pending = await ctx().admin('GET', `${base}/deliveries?state=pending`);
      assert.equal(
        pending.json().items.length,
        0,
        'pending deliveries are failed when the endpoint is disabled',
      );
      // Re-enabling clears the reason.
      const enabled = await ctx().admin('PATCH', base, { enabled: true });
      assert.equal(enabled.json().disabled_reason, null);
      assert.equal(enabled.json().failing_since, null);
    });

    test('metrics count queue depth and outcomes', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver({ status: 500 });
      await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const before = (await ctx().admin('GET', '/admin/v1/metrics')).json();
      await emitEvent(ctx(), tenant, clock);
      await emitEvent(ctx(), tenant, clock);
      const queued = (await ctx().admin('GET', '/admin/v1/metrics')).json();
      assert.equal(queued.queue.pending - before.queue.pending, 2);
      await withWorker(ctx(), tenant, clock, async (worker) => {
        await worker.drain();
      });
      const after = (await ctx().admin('GET', '/admin/v1/metrics')).json();
      assert.equal(
        (after.attempts.http_error?.last_hour ?? 0) - (before.attempts.http_error?.last_hour ?? 0),
        2,
      );
      assert.equal(after.queue.retrying - before.queue.retrying, 2);
      const text = (await ctx().request({ method: 'GET', url: '/metrics', token: METRICS_TOKEN })).body;
      assert.match(text, /ssp_webhook_attempts_last_hour\{outcome="http_error"\} \d+/);
    });

    test('connect time: a stored name that now resolves to loopback is refused before any connection', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      let connections = 0;
      const server = net.createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      // Saved while the name was public; it has since been re-pointed (DNS rebinding).
      const { rows } = await ctx().db.query<{ id: string }>(
        'INSERT INTO webhook_endpoints (institution_id, url, secret) VALUES ($1, $2, $3) RETURNING id',
        [tenant.institutionId, `https://hooks.rebound.example:${port}/hook`, generateWebhookSecret()],
      );
      const endpointId = rows[0]?.id as string;
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      // The name now resolves as the system resolves localhost (127.0.0.1 / ::1).
      const rebound = ((_host: string, options: dns.LookupOptions, callback: never) =>
        dns.lookup('localhost', options, callback)) as unknown as typeof dns.lookup;
      const worker = workerFor(ctx(), tenant, clock, { policy: { allowLoopback: false }, lookup: rebound });
      try {
        assert.deepEqual((await worker.drain()).outcomes, { blocked_address: 1 });
      } finally {
        await worker.close();
        await new Promise((resolve) => server.close(resolve));
      }
      assert.equal(connections, 0, 'no TCP connection reached the receiver');
      assert.match(
        (await delivery(ctx(), event.id, endpointId)).last_error ?? '',
        /refused: hooks\.rebound\.example resolves only to non-public addresses/,
      );
    });

    test('a literal loopback address is refused without the development setting', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const r = await receiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      const worker = workerFor(ctx(), tenant, clock, { policy: { allowLoopback: false } });
      try {
        assert.deepEqual((await worker.drain()).outcomes, { blocked_address: 1 });
      } finally {
        await worker.close();
      }
      assert.equal(r.received.length, 0);
      assert.match((await delivery(ctx(), event.id, endpoint.id)).last_error ?? '', /refused/);
    });

    test('finished deliveries are pruned after the retention period; pending ones are kept', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const ok = await receiver();
      const failing = await receiver({ status: 500 });
      const done = await addEndpoint(ctx(), tenant, { url: ok.url });
      const retrying = await addEndpoint(ctx(), tenant, { url: failing.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock);
      await withWorker(
        ctx(),
        tenant,
        clock,
        async (worker) => {
          await worker.drain();
          clock.advance(7 * 24 * HOUR + 1_000);
          assert.ok((await worker.prune()) >= 1);
        },
        { retentionMs: 7 * 24 * HOUR },
      );
      assert.equal(await delivery(ctx(), event.id, done.id), undefined);
      assert.equal((await delivery(ctx(), event.id, retrying.id)).state, 'pending');
      const { rows } = await ctx().db.query('SELECT 1 FROM webhook_attempts WHERE endpoint_id = $1', [
        done.id,
      ]);
      assert.equal(rows.length, 0, 'attempts go with their delivery');
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
