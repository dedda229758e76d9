// No request waits behind background work: the largest calendar feed, a OneRoster pull of
// 20,000 students, a nightly roster push of 60,000 students and 10,000 webhook deliveries run
// at once on one server, while GET /health/live (every 20 ms) and a console page (the students
// list, every 100 ms) are timed from when each probe was due. Target: p99 of both under 100 ms,
// on PostgreSQL and on the embedded database. The embedded database is measured on its own
// thread (the default) and, for comparison, on the server's thread (EMBEDDED_DATABASE_THREAD=off).
// An idle run of the same probes first shows the machine's own noise.
// The outside parties (the SIS pushing, the webhook receiver; bench/background-peers.ts) and the
// OneRoster provider run in processes of their own, so that only the server's own work shares
// the probes' event loop. The background work is done by the service's workers as `ssp serve`
// runs them: on PostgreSQL in their own thread (WORKERS_THREAD's default there;
// BENCH_WORKERS_THREAD=off runs them on the server's thread), on PGlite on the server's thread.

import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { createPgliteDb, type Db } from '../src/db/db.ts';
import { DEFAULT_LIMITS } from '../src/domain/calendar/schedule.ts';
import { pullDepsOf } from '../src/domain/oneroster/pull/pull.ts';
import { pullStatus, requestPull } from '../src/domain/oneroster/pull/requests.ts';
import { putSource } from '../src/domain/oneroster/pull/sources.ts';
import { startSession } from '../src/domain/people/sessions.ts';
import { issueRosterSecret } from '../src/domain/secrets/roster-secrets.ts';
import { createEndpoint } from '../src/domain/webhooks/endpoints.ts';
import { createRuntime, createWorkers, type Runtime } from '../src/runtime.ts';
import { startWorkersThread } from '../src/workers-thread/start.ts';
import { singleEventsFeed } from '../test/calendar/large-feeds.ts';
import { openScratchPostgres, pgliteTemplate } from '../test/helpers/scratch-db.ts';
import type { PeerAsk, PeerReply } from './background-peers.ts';
import { seedFeedInstitution as seed } from './bench-app.ts';
import { startProvider } from './oneroster.ts';
import { sourceSettings } from './oneroster-source.ts';
import type { BenchOptions } from './run.ts';
import { SMOKE, size } from './size.ts';
import { enqueue } from './webhooks.ts';

const FEED_EVENTS = size(53_000, 100);
const PUSH_STUDENTS = size(60_000, 300, 'BENCH_BACKGROUND_STUDENTS');
const PUSH_PAGE = size(5000, 100);
const DELIVERIES = size(10_000, 50);
const IDLE_MS = size(3_000, 200);

type Kind = 'postgres' | 'pglite' | 'pglite-here';

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * A probe that GETs `url` `everyMs` after its last answer, timing each from when it was due (so
 * a stall of the event loop while it waited to be sent counts too).
 */
function probe(url: string, everyMs: number, headers: Record<string, string> = {}) {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    let due = performance.now();
    while (running) {
      const started = Math.min(due, performance.now());
      const res = await request(url, { dispatcher: agent, headers });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
      if (!running) break;
      times.push(performance.now() - started);
      // The next one is due an interval after this answer (a slow answer does not queue more).
      due = performance.now() + everyMs;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  // A probe that failed says so when stopped (never as an unhandled rejection meanwhile).
  loop.catch(() => {});
  return {
    async stop() {
      running = false;
      await loop;
      await agent.close();
      return times;
    },
  };
}

const line = (label: string, times: number[]) =>
  `${label} p50 ${percentile(times, 50).toFixed(0)} ms, p99 ${percentile(times, 99).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (${times.length} requests)`;

async function openDb(kind: Kind, databaseUrl?: string): Promise<Db> {
  if (kind === 'postgres') return openScratchPostgres(databaseUrl!, { prefix: 'bench_bg' });
  // As the service keeps it: its files in a data directory on disk (an in-memory PGlite grows a
  // file by copying it whole: docs/performance.md, "PGlite as the service keeps it").
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-bench-background-'));
  const db = await createPgliteDb({
    dataDir,
    loadDataDir: await pgliteTemplate(),
    thread: kind === 'pglite',
  });
  return {
    ...db,
    async close() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The outside parties (bench/background-peers.ts), in a process of their own. */
async function startPeers() {
  const child = fork(new URL('./background-peers.ts', import.meta.url), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (reply: PeerReply) => void>();
  let nextId = 1;
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the bench's peers exited ${code}`)));
  });
  child.on('message', (reply: PeerReply) => {
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const ask = (message: DistributiveOmit<PeerAsk, 'id'>) =>
    new Promise<PeerReply>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply)));
      child.send({ ...message, id });
    });
  return {
    receiverUrl: (await ask({ ask: 'receiver' })).url!,
    received: (count: number) => ask({ ask: 'received', count }),
    push: (origin: string, secret: string, cohortId: string, version: number) =>
      ask({ ask: 'push', origin, secret, cohortId, version, students: PUSH_STUDENTS, page: PUSH_PAGE }),
    stop: () => child.disconnect(),
  };
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

async function benchKind(kind: Kind, databaseUrl?: string): Promise<void> {
  const db = await openDb(kind, databaseUrl);
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', ENCRYPTION_KEY: randomBytes(32).toString('base64url') }),
    rosterRateLimitPerMinute: 1_000_000,
    allowLoopbackOutbound: true,
    runWorkers: false,
    // The workers' thread opens a pool of its own onto the same scratch database.
    databaseUrl: 'connectionString' in db ? String(db.connectionString) : undefined,
  };
  const runtime = createRuntime({ db, config });
  const app = await buildApp(runtime, {
    logger: false,
    rateLimitNameSpace: `bg-${randomBytes(4).toString('hex')}:`,
  });
  let workers: Awaited<ReturnType<typeof backgroundWorkers>> | undefined;
  const provider = await startProvider();
  const peers = await startPeers();
  const feed = singleEventsFeed(FEED_EVENTS);
  const feedServer = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/calendar' });
    res.end(feed);
  });
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

    // The institution the nightly push, the deliveries and the console page use.
    const night = await seed(db, 'night');
    const secret = (await issueRosterSecret(runtime.db, { id: night.id, slug: night.slug })).secret;
    const seeded = performance.now();
    await peers.push(origin, secret, night.cohortId, 0);
    const seedSeconds = (performance.now() - seeded) / 1000;
    await createEndpoint(runtime, night.id, { url: peers.receiverUrl });
    await enqueue(db, night.id, DELIVERIES);
    // The pull's institution and source.
    const pulled = await seed(db, 'pulled');
    await putSource(runtime, pulled.id, sourceSettings(provider, pulled.cohortId), new Date());
    // The calendar feed, due now, and the pull asked for ("Sync now"): the workers' first round
    // claims them.
    const { rows } = await db.query<{ id: string }>(
      'INSERT INTO calendar_feeds (institution_id, url) VALUES ($1, $2) RETURNING id',
      [night.id, `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/large.ics`],
    );
    const pull = await requestPull(runtime, pulled.id, 'full');
    workers = await backgroundWorkers(kind, config, runtime);

    const session = await startSession(runtime, { kind: 'operator' });
    const cookieName = config.publicBaseUrl.startsWith('https:') ? '__Host-ssp_session' : 'ssp_session';
    const probes = () => ({
      health: probe(`${origin}/health/live`, 20),
      page: probe(`${origin}/console/night/students`, 100, { cookie: `${cookieName}=${session.token}` }),
    });

    const idle = probes();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const [idleHealth, idlePage] = [await idle.health.stop(), await idle.page.stop()];

    const busy = probes();
    // The server's event loop delay itself (timers 10 ms apart, late by how much), beside the probes.
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // And the server thread's own CPU time between two turns of a 5 ms timer: how long its work
    // held the loop, whatever the machine's load (a loaded machine stretches the delay above by
    // waiting for a CPU; this counts only the work).
    const heldCpu: number[] = [];
    let lastCpu = process.threadCpuUsage();
    const firstCpu = lastCpu;
    const firstProcessCpu = process.cpuUsage();
    const cpuTimer = setInterval(() => {
      const now = process.threadCpuUsage();
      heldCpu.push((now.user - lastCpu.user + now.system - lastCpu.system) / 1000);
      lastCpu = now;
    }, 5);
    const started = performance.now();
    const took: Record<string, number> = {};
    const timed = async (name: string, work: () => Promise<unknown>) => {
      await work();
      took[name] = (performance.now() - started) / 1000;
    };
    workers.start();
    const work = Promise.all([
      timed('calendar', async () => {
        const feed = await until(() =>
          db
            .query<{ last_status: string | null; last_error: string | null }>(
              'SELECT last_status, last_error FROM calendar_feeds WHERE id = $1',
              [rows[0].id],
            )
            .then(({ rows: [feed] }) => (feed.last_status ? feed : undefined)),
        );
        if (feed.last_status !== 'ok')
          throw new Error(`calendar fetch: ${feed.last_status} ${feed.last_error}`);
      }),
      timed('pull', async () => {
        const outcome = await until(() =>
          pullStatus(runtime, pulled.id, pull.run_id).then((status) =>
            ['ok', 'failed'].includes(status.status) ? status : undefined,
          ),
        );
        if (outcome.status !== 'ok') throw new Error(`the pull failed: ${JSON.stringify(outcome)}`);
      }),
      timed('push', () => peers.push(origin, secret, night.cohortId, 1)),
      timed('webhooks', () => peers.received(DELIVERIES)),
    ]);
    // The probes stop before anything closes, also when the work failed.
    await work.catch(async (error) => {
      await Promise.allSettled([busy.health.stop(), busy.page.stop()]);
      throw error;
    });
    const seconds = (performance.now() - started) / 1000;
    delay.disable();
    clearInterval(cpuTimer);
    const spent = process.threadCpuUsage(firstCpu);
    const cpuSeconds = (spent.user + spent.system) / 1e6;
    // The whole process's too: the server's thread, the workers' thread, the parse workers.
    const processSpent = process.cpuUsage(firstProcessCpu);
    const processCpuSeconds = (processSpent.user + processSpent.system) / 1e6;
    const delayMs = (ns: number) => (ns / 1e6).toFixed(0);
    const [health, page] = [await busy.health.stop(), await busy.page.stop()];
    const label = `${
      {
        postgres: 'PostgreSQL',
        pglite: 'PGlite (own thread)',
        'pglite-here': 'PGlite (server thread)',
      }[kind]
    }, workers on ${workers.where}`;
    process.stdout.write(
      `[${label}] seeded ${PUSH_STUDENTS} students in ${seedSeconds.toFixed(1)} s; load average ${await loadAverage()}\n` +
        `  idle:       ${line('/health/live', idleHealth)}; ${line('console students page', idlePage)}\n` +
        `  background: ${line('/health/live', health)}; ${line('console students page', page)}\n` +
        `  event loop delay during the work: p50 ${delayMs(delay.percentile(50))} ms, p99 ${delayMs(delay.percentile(99))} ms, max ${delayMs(delay.max)} ms; ` +
        `its thread's CPU between two turns p99 ${percentile(heldCpu, 99).toFixed(0)} ms, max ${Math.max(...heldCpu).toFixed(0)} ms, ` +
        `over 50 ms ${heldCpu.filter((ms) => ms > 50).length} times; its CPU during the work ${cpuSeconds.toFixed(1)} s ` +
        `(the whole process's ${processCpuSeconds.toFixed(1)} s)\n` +
        `  background work done in ${seconds.toFixed(1)} s (calendar ${FEED_EVENTS} events ${took.calendar.toFixed(1)} s, ` +
        `pull ${took.pull.toFixed(1)} s, push of ${PUSH_STUDENTS} ${took.push.toFixed(1)} s, ${DELIVERIES} deliveries ${took.webhooks.toFixed(1)} s); ` +
        `target p99 < 100 ms: ${percentile(health, 99) < 100 && percentile(page, 99) < 100 ? 'met' : 'not met'}\n`,
    );
  } finally {
    await workers?.stop();
    provider.stop();
    peers.stop();
    feedServer.close();
    await app.close();
    await runtime.close();
    await db.close();
  }
}

/** Generous time limits: a busy machine must slow the feed down, not fail it. */
const calendarLimits = { ...DEFAULT_LIMITS, timeoutMs: 300_000, parseTimeoutMs: 600_000 };

/**
 * The service's workers, where `ssp serve` runs them: on PostgreSQL in their own thread (unless
 * BENCH_WORKERS_THREAD=off), else on the server's thread. Built, not started.
 */
async function backgroundWorkers(kind: Kind, config: Config, runtime: Runtime) {
  if (kind === 'postgres' && process.env.BENCH_WORKERS_THREAD !== 'off') {
    const thread = await startWorkersThread(
      config,
      runtime,
      (error) => {
        throw error;
      },
      { calendarLimits },
    );
    return { where: 'their own thread', start: thread.start, stop: thread.stop };
  }
  const workers = createWorkers(
    { ...runtime, calendarFetch: { limits: calendarLimits } },
    pullDepsOf(runtime),
  );
  const all = workers.all({ info() {}, warn() {}, error() {} });
  return {
    where: "the server's thread",
    start: all.start,
    stop: async () => {
      await all.stop();
      await workers.close();
    },
  };
}

/** Reads `read` every 100 ms until it gives a value. */
async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function loadAverage(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

export async function run(options: BenchOptions): Promise<void> {
  // BENCH_ONLY=postgres, pglite or pglite-here measures one alone.
  const only = process.env.BENCH_ONLY;
  // The server's-thread comparison is left out of the smoke run (it adds a minute and checks no
  // code the other two do not).
  const kinds: Kind[] = SMOKE ? ['pglite'] : ['pglite', 'pglite-here'];
  if (options.databaseUrl) kinds.unshift('postgres');
  for (const kind of kinds) if (!only || only === kind) await benchKind(kind, options.databaseUrl);
}
