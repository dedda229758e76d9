// Traces over OTLP from the real server process (bin/serve.js, as `npm start` runs it) to a
// receiver the test runs: inbound HTTP and Fastify's route, PostgreSQL's statements (with
// TEST_DATABASE_URL), a webhook delivery as a worker job with its outbound request (undici) inside
// it and the trace handed on in `traceparent`; and log lines that carry the trace id.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { METRICS_TOKEN, OPERATOR_TOKEN, TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { createEmptyDatabase, migratedDataDir } from '../helpers/scratch-db.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { testTimeout } from '../helpers/time-limit.ts';

/** A fresh, empty PostgreSQL database for one server process; dropped after the test. */
async function freshPostgres(base: string): Promise<string> {
  const database = await createEmptyDatabase(base, 'ssp_trace');
  after(database.drop);
  return database.url;
}

for (const kind of databaseKinds()) {
  test(`spans reach an OTLP receiver, and logs carry the trace id [${kind}]`, {
    timeout: testTimeout(180_000),
  }, async () => {
    const otlp = await startOtlpReceiver();
    const hook = await startReceiver({ status: 204 });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-trace-'));
    // The embedded database already made (the first start is test/main.test.ts's).
    if (kind === 'pglite') await migratedDataDir(dataDir);
    const databaseUrl = kind === 'postgres' ? await freshPostgres(process.env.TEST_DATABASE_URL ?? '') : '';
    const server = await startServerProcess(
      dataDir,
      {
        DATABASE_URL: databaseUrl,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        OPERATOR_TOKEN,
        METRICS_TOKEN,
        ALLOW_LOOPBACK_OUTBOUND: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      'bin/serve.js',
    );
    try {
      const call = async (method: string, url: string, body?: unknown, token = OPERATOR_TOKEN) => {
        const res = await fetch(`${server.url}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        const text = await res.text();
        assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${text}`);
        return text ? JSON.parse(text) : undefined;
      };
      const slug = `trace-${randomBytes(3).toString('hex')}`;
      const base = `/admin/v1/institutions/${slug}`;
      await call('POST', '/admin/v1/institutions', { slug, name: 'Tracing University' });
      const cohort = await call('POST', `${base}/cohorts`, { name: 'All' });
      const { secret } = await call('POST', `${base}/roster-secret`);
      await call(
        'POST',
        '/api/sis/sync',
        { cohort_id: cohort.id, students: [{ email: 'ana@example.edu', student_id_ext: 'T1' }] },
        secret,
      );
      await call('POST', `${base}/webhook-endpoints`, { url: hook.url });
      await call('POST', `${base}/help-requests`, { student_email: 'ana@example.edu' });

      // The delivery worker's job, and the outbound request made inside it.
      await otlp.waitFor((spans) => {
        const job = spans.find((s) => s.name === 'webhooks job');
        return Boolean(job && spans.some((s) => s.parentSpanId === job.spanId && s.scope.includes('undici')));
      });
      const spans = otlp.spans;
      const job = spans.find((s) => s.name === 'webhooks job');
      assert.ok(job?.attributes['ssp.delivery_id'], 'the job names its delivery');
      assert.equal(job?.service, 'ssp');
      const outbound = spans.find((s) => s.parentSpanId === job?.spanId && s.scope.includes('undici'));
      assert.ok(outbound);
      // The endpoint is told the trace, so its own spans join it.
      const traceparent = hook.received.at(-1)?.headers.traceparent as string | undefined;
      assert.match(traceparent ?? '', new RegExp(`^00-${job?.traceId}-[0-9a-f]{16}-0[01]$`));

      // Inbound HTTP, Fastify's route, and (PostgreSQL) the statements, in one trace per request.
      await otlp.waitFor((all) => all.some((s) => s.scope === '@fastify/otel'));
      const inbound = spans.find(
        (s) => s.scope.includes('instrumentation-http') && /^POST \/admin\/v1\/institutions$/.test(s.name),
      );
      assert.ok(
        inbound,
        `an inbound span; got ${[...new Set(spans.map((s) => `${s.scope}:${s.name}`))].join(', ')}`,
      );
      assert.ok(spans.some((s) => s.scope === '@fastify/otel' && s.traceId === inbound.traceId));
      if (kind === 'postgres') {
        await otlp.waitFor((all) => all.some((s) => s.scope.includes('instrumentation-pg')));
        assert.ok(spans.some((s) => s.scope.includes('instrumentation-pg') && s.traceId === inbound.traceId));
      }
      // Probes and scrapes are not traced.
      await fetch(`${server.url}/health/live`);
      assert.ok(!spans.some((s) => s.name.includes('/health/')));

      // The request's log lines carry its trace id.
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; trace_id?: string; req?: { url?: string } });
      const logged = lines.find(
        (l) => l.msg === 'incoming request' && l.req?.url === '/admin/v1/institutions',
      );
      assert.equal(logged?.trace_id, inbound.traceId);
    } finally {
      await server.stop();
      await hook.close();
      await otlp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
