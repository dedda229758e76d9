// Without the OTEL_* variables tracing costs nothing: no part of the SDK or its instrumentations
// is loaded (only the no-op API, which prom-client itself requires), no global tracer is
// registered, and jobs and log lines run without it.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { tracingWanted } from '../../src/config.ts';
import { workerJob } from '../../src/lib/telemetry/jobs.ts';
import { tracing } from '../../src/lib/telemetry/tracing.ts';
import { startTestApp } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';

test('off by default: nothing of OpenTelemetry is loaded while the app serves and a job runs', async () => {
  assert.equal(tracingWanted({}), false);
  const ctx = await startTestApp(databaseKinds()[0]);
  try {
    assert.equal((await ctx.request({ method: 'GET', url: '/health/ready' })).statusCode, 200);
    assert.equal(await workerJob('test', async () => 42), 42);
    assert.equal(tracing(), undefined);
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) =>
      /node_modules\/(@opentelemetry\/(?!api\/)|@fastify\/otel|import-in-the-middle|require-in-the-middle)/.test(
        file,
      ),
    );
    assert.deepEqual(loaded, []);
    assert.equal((globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')], undefined);
  } finally {
    await ctx.close();
  }
});
