// `ssp worker` with METRICS_PORT: its own listener serves GET /metrics to the scrape token only.
// PostgreSQL only (a standalone worker needs it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { sspBin } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';
import { createEmptyDatabase } from '../helpers/scratch-db.ts';
import { spawnGathered } from '../helpers/server-process.ts';
import { testTimeout } from '../helpers/time-limit.ts';

const base = process.env.TEST_DATABASE_URL;

test('ssp worker serves its metrics on METRICS_PORT, to the scrape token only', {
  skip: !base,
  timeout: testTimeout(120_000),
}, async () => {
  const database = await createEmptyDatabase(base ?? '', 'ssp_wmetrics');
  const port = await freePort();
  const token = 'worker-scrape-token-for-tests';
  const worker = spawnGathered('the worker', [sspBin, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      HOST: '127.0.0.1',
      METRICS_PORT: String(port),
      METRICS_TOKEN: token,
      LOG_LEVEL: 'info',
    },
  });
  try {
    await worker.waitFor(/worker metrics at \/metrics/);
    const scrape = (auth?: string) =>
      fetch(`http://127.0.0.1:${port}/metrics`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
    const ok = await scrape(token);
    assert.equal(ok.status, 200);
    const text = await ok.text();
    assert.match(text, /^ssp_worker_queue_depth\{worker="webhooks"\} \d+$/m);
    assert.match(text, /^nodejs_eventloop_lag_p99_seconds /m);
    assert.equal((await scrape()).status, 401);
    assert.equal((await scrape('not-the-token')).status, 401);
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await database.drop();
  }
});
