// The service as `ssp serve` starts it (startService), with its workers: on PostgreSQL in a
// thread of their own (WORKERS_THREAD's default there), on the embedded database on the server's
// thread. Either way a webhook reaches a local receiver, "Sync now" wakes the pull worker at once,
// GET /metrics shows the workers' jobs, and a shutdown stops them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import { metricsAsJson } from '../src/lib/telemetry/metrics.ts';
import { startService } from '../src/main.ts';
import { METRICS_TOKEN, OPERATOR_TOKEN, testConfig } from './helpers/app.ts';
import { databaseKinds } from './helpers/db.ts';
import { generateRoster, startOneRosterProvider } from './helpers/oneroster-provider.ts';
import { startReceiver } from './helpers/receiver.ts';
import { openScratchPostgres } from './helpers/scratch-db.ts';
import { scaled, testTimeout } from './helpers/time-limit.ts';
import { emitEvent } from './helpers/webhooks.ts';

/** The jobs of `worker` with `outcome` in this thread's own registry (not the workers' thread's). */
async function jobCount(worker: string, outcome: string): Promise<number> {
  const metric = (await metricsAsJson()).find((m) => m.name === 'ssp_worker_job_duration_seconds');
  const values = (metric?.values ?? []) as {
    metricName?: string;
    labels: Record<string, unknown>;
    value: number;
  }[];
  const count = values.find(
    (v) =>
      v.metricName === 'ssp_worker_job_duration_seconds_count' &&
      v.labels.worker === worker &&
      v.labels.outcome === outcome,
  );
  return Number(count?.value ?? 0);
}

/** Polls `read` until `done` says yes or `ms` pass; returns the last value read. */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

test('WORKERS_THREAD: auto is on with PostgreSQL, off with the embedded database; on needs PostgreSQL', () => {
  const postgres = { DATABASE_URL: 'postgres://x@127.0.0.1/db', ENCRYPTION_KEY: 'a'.repeat(64) };
  assert.equal(loadConfig(postgres).workersThread, true);
  assert.equal(loadConfig({ ...postgres, WORKERS_THREAD: 'off' }).workersThread, false);
  assert.equal(loadConfig({}).workersThread, false);
  assert.equal(loadConfig({ WORKERS_THREAD: 'off' }).workersThread, false);
  assert.throws(() => loadConfig({ WORKERS_THREAD: 'on' }), /WORKERS_THREAD=on needs PostgreSQL/);
  assert.throws(() => loadConfig({ WORKERS_THREAD: 'sometimes' }), /WORKERS_THREAD must be auto, on or off/);
});

for (const kind of databaseKinds()) {
  test(`${kind}: the service's workers deliver, pull on "Sync now", show in /metrics and stop`, {
    timeout: testTimeout(180_000),
  }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-service-workers-'));
    const scratch =
      kind === 'postgres'
        ? await openScratchPostgres(process.env.TEST_DATABASE_URL!, { prefix: 'tsw' })
        : undefined;
    after(async () => {
      await scratch?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (scratch) env.DATABASE_URL = scratch.connectionString;
    const config = testConfig(
      { host: '127.0.0.1', port: 0, runWorkers: true, allowLoopbackOutbound: true },
      env,
    );
    assert.equal(config.workersThread, kind === 'postgres', 'the default: a thread with PostgreSQL');
    const service = await startService(config, () => {});
    const receiver = await startReceiver();
    const provider = await startOneRosterProvider({ data: generateRoster({ students: 3 }) });
    after(async () => {
      await receiver.close();
      await provider.close();
    });
    const admin = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${service.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${OPERATOR_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          prefer: 'respond-async',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    let closed = false;
    try {
      const slug = `workers-${kind}`;
      const institution = await admin('POST', '/admin/v1/institutions', { slug, name: 'Workers' });
      assert.equal(institution.status, 201);
      const institutionId = String(institution.body.id);
      const cohort = await admin('POST', `/admin/v1/institutions/${slug}/cohorts`, { name: 'A' });
      assert.equal(cohort.status, 201);

      // A webhook event, recorded as the help-request side records it, reaches the receiver.
      const endpoint = await admin('POST', `/admin/v1/institutions/${slug}/webhook-endpoints`, {
        url: receiver.url,
      });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      await emitEvent(service.deps, { institutionId }, systemClock, {
        helpRequestId: '00000000-0000-4000-8000-000000000001',
      });
      const received = await waitFor(
        async () => receiver.received.length,
        (n) => n > 0,
        scaled(20_000),
      );
      assert.equal(received, 1, 'the event was delivered');
      assert.match(receiver.received[0].body, /help_request\.created/);

      // "Sync now", answered by the server, wakes the pull worker well before its 15 s poll.
      const source = await admin('PUT', `/admin/v1/institutions/${slug}/oneroster-source`, {
        base_url: provider.baseUrl,
        token_url: provider.tokenUrl,
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
        cohort_id: cohort.body.id,
      });
      assert.equal(source.status, 200, JSON.stringify(source.body));
      const asked = await admin('POST', `/admin/v1/institutions/${slug}/oneroster-source/pulls`, {
        mode: 'full',
      });
      assert.equal(asked.status, 202, JSON.stringify(asked.body));
      const location = `/admin/v1/institutions/${slug}/oneroster-source/pulls/${asked.body.run_id}`;
      const picked = await waitFor(
        async () => (await admin('GET', location)).body,
        (run) => run.status !== 'queued',
        scaled(10_000),
      );
      assert.notEqual(picked.status, 'queued', 'picked up within 10 s');
      const pulled = await waitFor(
        async () => (await admin('GET', location)).body,
        (run) => run.status !== 'running' && run.status !== 'queued',
        scaled(20_000),
      );
      assert.equal(pulled.status, 'ok', JSON.stringify(pulled));

      // The workers' jobs, counted where they ran, on the server's /metrics.
      const scrape = await fetch(`${service.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(scrape.status, 200);
      const metrics = await scrape.text();
      // This process's registry counts the jobs run on its own thread (the embedded database's,
      // and an earlier test's); the scrape adds the thread's to them.
      const ownPulls = await jobCount('oneroster', 'ok');
      const threadPulls = kind === 'postgres' ? 1 : 0;
      assert.equal(ownPulls + threadPulls >= 1, true);
      assert.match(
        metrics,
        new RegExp(
          `^ssp_worker_job_duration_seconds_count\\{worker="oneroster",outcome="ok"\\} ${ownPulls + threadPulls}$`,
          'm',
        ),
      );
      const ownDeliveries = await jobCount('webhooks', 'success');
      const scraped = Number(
        /^ssp_worker_job_duration_seconds_count\{worker="webhooks",outcome="success"\} (\d+)$/m.exec(
          metrics,
        )?.[1],
      );
      assert.equal(scraped, ownDeliveries + (kind === 'postgres' ? 1 : 0), metrics);
      // The server's own figures are there as before, once each.
      assert.match(metrics, /^ssp_worker_queue_depth\{worker="webhooks"\} 0$/m);
      assert.equal(metrics.match(/^# TYPE ssp_http_request_duration_seconds /gm)?.length, 1);
      if (kind === 'postgres')
        assert.match(
          metrics,
          /^ssp_db_pool_connections\{state="max"\} 20$/m,
          'both pools: the server’s and the thread’s',
        );

      // A clean shutdown stops the workers (the thread ends, its pool closes).
      await service.close();
      closed = true;
      if (scratch) {
        // A closed connection's backend leaves pg_stat_activity a moment after the client hangs up.
        const left = await waitFor(
          async () =>
            (
              await scratch.query<{ n: number }>(
                'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
              )
            ).rows[0].n,
          (n) => n === 0,
          scaled(5_000),
        );
        assert.equal(left, 0, 'no connection of the service is left open');
      }
    } finally {
      if (!closed) await service.close();
    }
  });
}
