import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, workerFor } from '../helpers/webhooks.ts';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-process.ts');

/** Waits (real time, polling) until `done()`; fails after `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// PostgreSQL only: the embedded database belongs to one process.
describe('a worker process killed mid-delivery [postgres]', { skip: !process.env.TEST_DATABASE_URL }, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await startTestApp('postgres', { config: { allowLoopbackOutbound: true } });
  });
  after(async () => {
    await ctx?.close();
  });

  test('loses nothing: the lease expires and another worker delivers exactly once', async () => {
    const tenant = await seedTenant(ctx, { rosterSecret: false });
    const r = await startReceiver('hang');
    const endpoint = await addEndpoint(ctx, tenant, { url: r.url });
    const clock = testClock();
    const event = await emitEvent(ctx, tenant, clock);
    const { rows: schema } = await ctx.db.query<{ s: string }>('SELECT current_schema() AS s');
    const leaseMs = 60_000;
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        WORKER_DATABASE_URL: process.env.TEST_DATABASE_URL,
        WORKER_SCHEMA: schema[0]?.s,
        WORKER_INSTITUTION_ID: tenant.institutionId,
        WORKER_ATTEMPT_TIMEOUT_MS: '30000',
        WORKER_LEASE_MS: String(leaseMs),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    try {
      // The child claims the delivery and its request reaches the receiver, which never answers.
      await until(() => r.received.length === 1, 20_000, 'the child worker to post');
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      const state = await ctx.db.query<{ state: string; attempts: number; lease_token: string | null }>(
        'SELECT state, attempts, lease_token FROM webhook_deliveries WHERE event_id = $1',
        [event.id],
      );
      assert.deepEqual(
        state.rows.map((d) => [d.state, d.attempts, d.lease_token !== null]),
        [['pending', 1, true]],
        'claimed under a lease, nothing recorded',
      );

      // Another worker, once the lease has expired, delivers it.
      r.behaviour = { status: 200 };
      clock.advance(leaseMs + 1_000);
      const worker = workerFor(ctx, tenant, clock);
      try {
        assert.deepEqual(await worker.drain(), { claimed: 1, outcomes: { success: 1 } });
        assert.deepEqual(await worker.drain(), { claimed: 0, outcomes: {} });
      } finally {
        await worker.close();
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await r.close();
    }
    assert.equal(r.received.length, 2, 'the killed attempt and the redelivery');
    assert.equal(r.received[1]?.headers['webhook-id'], event.id);
    const { rows } = await ctx.db.query<{ state: string; attempts: number }>(
      'SELECT state, attempts FROM webhook_deliveries WHERE event_id = $1',
      [event.id],
    );
    assert.deepEqual(rows, [{ state: 'succeeded', attempts: 2 }]);
    const attempts = await ctx.db.query<{ outcome: string }>(
      'SELECT outcome FROM webhook_attempts WHERE endpoint_id = $1',
      [endpoint.id],
    );
    assert.deepEqual(
      attempts.rows.map((a) => a.outcome),
      ['success'],
      'exactly one attempt recorded, a success',
    );
  });
});
