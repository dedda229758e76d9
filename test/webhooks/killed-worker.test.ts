import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../src/lib/clock.ts';
import { DEFAULT_LEASE_MS } from '../../src/workers/webhook-delivery.ts';
import { seedTenant, startTestApp, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/app.ts';
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

  test('loses nothing: another worker delivers it within 15 s of the kill, exactly once', async () => {
    const tenant = await seedTenant(ctx, { rosterSecret: false });
    const r = await startReceiver('hang');
    const endpoint = await addEndpoint(ctx, tenant, { url: r.url });
    const event = await emitEvent(ctx, tenant, testClock());
    // The test's own database (a clone of the migrated template) on the same server.
    const { rows: where } = await ctx.db.query<{ database: string; schema: string }>(
      'SELECT current_database() AS database, current_schema() AS schema',
    );
    const databaseUrl = new URL(process.env.TEST_DATABASE_URL!);
    databaseUrl.pathname = `/${where[0].database}`;
    // The child runs with the default lease and renewal period (real time: it is another process).
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        WORKER_DATABASE_URL: databaseUrl.toString(),
        WORKER_SCHEMA: where[0].schema,
        WORKER_INSTITUTION_ID: tenant.institutionId,
        WORKER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        WORKER_ATTEMPT_TIMEOUT_MS: '30000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    // Another instance, running all along with the defaults too.
    const survivor = workerFor(ctx, tenant, systemClock, { idlePollMs: 20 });
    let killedAt = 0;
    try {
      // The child claims the delivery and its request reaches the receiver, which never answers.
      await until(() => r.received.length === 1, 20_000, 'the child worker to post');
      survivor.start();
      const state = await ctx.db.query<{ state: string; attempts: number; lease_token: string | null }>(
        'SELECT state, attempts, lease_token FROM webhook_deliveries WHERE event_id = $1',
        [event.id],
      );
      assert.deepEqual(
        state.rows.map((d) => [d.state, d.attempts, d.lease_token !== null]),
        [['pending', 1, true]],
        'claimed under a lease, nothing recorded',
      );
      r.behaviour = { status: 200 };
      child.kill('SIGKILL');
      killedAt = performance.now();
      assert.equal(await exited, 'SIGKILL');

      // The lease is no longer renewed: it expires and the survivor delivers.
      await until(() => r.received.length === 2, 20_000, 'the survivor to redeliver');
      const waited = r.received[1].at - killedAt;
      assert.ok(waited < 15_000, `redelivered ${Math.round(waited)} ms after the kill`);
      assert.ok(waited <= DEFAULT_LEASE_MS + 1_000, `within one lease (${Math.round(waited)} ms)`);
      await until(
        async () =>
          (
            await ctx.db.query('SELECT 1 FROM webhook_deliveries WHERE event_id = $1 AND state = $2', [
              event.id,
              'succeeded',
            ])
          ).rows.length === 1,
        5_000,
        'the success to be recorded',
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await survivor.stop();
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
