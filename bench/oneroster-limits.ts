// Benchmark: what one tenant's hostile OneRoster provider costs the shared server. A provider
// in a process of its own (bench/hostile-oneroster.ts) answers a pull with a 500 carrying a
// huge body (tried as often as a pull tries), or with very large pages. Measured in the
// service's process: peak RSS above its start (sampled every 20 ms), the slowest answer of
// /health/live asked every 100 ms over HTTP, and the longest event-loop stall. On PostgreSQL
// when a database is given (BENCH_DATABASE_URL …), else PGlite.
//
//   npm run bench -- oneroster-limits
//   BENCH_HOSTILE_ERROR_MB=300 BENCH_HOSTILE_PAGE_MB=30 BENCH_HOSTILE_PAGES=4 (the defaults);
//   BENCH_HOSTILE_ONLY=error or pages: one case alone

import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/config.ts';
import { pullDepsOf, pullNow } from '../src/domain/oneroster/pull/pull.ts';
import { putSource } from '../src/domain/oneroster/pull/sources.ts';
import { createRuntime } from '../src/runtime.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { type ProviderProcess, sampleRss, sourceSettings, startProviderProcess } from './oneroster-source.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const ERROR_MB = size(300, 1, 'BENCH_HOSTILE_ERROR_MB');
const PAGE_MB = size(30, 1, 'BENCH_HOSTILE_PAGE_MB');
const PAGES = size(4, 1, 'BENCH_HOSTILE_PAGES');

function startHostile(args: string[]): Promise<ProviderProcess> {
  return startProviderProcess([path.resolve('bench/hostile-oneroster.ts'), ...args], 'the hostile provider');
}

async function measure(label: string, args: string[], databaseUrl?: string): Promise<void> {
  // PostgreSQL when given: PGlite runs in the service's process, and its own writes of the
  // roster would be counted with what the provider costs.
  const db = databaseUrl
    ? await openScratchPostgres(databaseUrl, { prefix: 'bench_orl' })
    : await openScratchPglite();
  const runtime = createRuntime({
    db,
    config: { ...loadConfig({ LOG_LEVEL: 'silent' }), allowLoopbackOutbound: true, runWorkers: false },
  });
  const app = await buildApp(runtime, { logger: false });
  const provider = await startHostile(args);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { rows } = await db.query<{ id: string }>(
      "INSERT INTO institutions (slug, name) VALUES ('hostile', 'hostile') RETURNING id",
    );
    const institutionId = rows[0].id;
    const cohort = await db.query<{ id: string }>(
      "INSERT INTO cohorts (institution_id, name) VALUES ($1, 'Hostile cohort') RETURNING id",
      [institutionId],
    );
    await putSource(
      runtime,
      institutionId,
      sourceSettings(provider, cohort.rows[0].id, {
        client_id: 'hostile',
        client_secret: 'hostile-secret',
        programs_from: 'none',
      }),
      new Date(),
    );
    const rss = sampleRss();
    let slowestHealth = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const started = performance.now();
        await fetch(`${url}/health/live`).then((r) => r.arrayBuffer());
        slowestHealth = Math.max(slowestHealth, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const started = performance.now();
    // Retries without their waits: the provider's cost, not the backoff, is measured.
    const outcome = await pullNow({ ...pullDepsOf(runtime), sleep: async () => {} }, institutionId, 'full');
    const ms = performance.now() - started;
    loop.disable();
    probing = false;
    await probe;
    const peakAbove = rss.stop();
    process.stdout.write(
      `  ${label.padEnd(34)} ${(ms / 1000).toFixed(1).padStart(6)} s ${(peakAbove / 1024 / 1024).toFixed(0).padStart(6)} MB ${slowestHealth.toFixed(0).padStart(7)} ms ${(loop.max / 1e6).toFixed(0).padStart(7)} ms  ${outcome.status}${outcome.error ? `: ${outcome.error.slice(0, 90)}` : ''}\n`,
    );
  } finally {
    provider.stop();
    await app.close();
    await runtime.close();
    await db.close();
  }
}

export async function run(options: BenchOptions): Promise<void> {
  process.stdout.write(`  database: ${options.databaseUrl ? 'PostgreSQL' : 'PGlite'}\n`);
  process.stdout.write(
    '  provider                           pull time  peak RSS above start  slowest /health/live  longest loop stall  outcome\n',
  );
  // BENCH_HOSTILE_ONLY=error (or pages) measures one alone, in a process that has not grown yet.
  const only = process.env.BENCH_HOSTILE_ONLY;
  if (only !== 'pages')
    await measure(`500 with a ${ERROR_MB} MB body`, ['error', String(ERROR_MB)], options.databaseUrl);
  if (only !== 'error')
    await measure(
      `${PAGES} pages of ${PAGE_MB} MB`,
      ['pages', String(PAGE_MB), String(PAGES)],
      options.databaseUrl,
    );
}
