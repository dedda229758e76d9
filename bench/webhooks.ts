// Webhook delivery benchmark: deliveries per second from one worker to a local receiver, and
// the latency from an event's commit to its arrival at the receiver. Baseline measured in the
// same run: plain signed POSTs with undici over a keep-alive Agent (the HTTP floor).
// PGlite always; PostgreSQL too when a database is given, where the same backlog is also
// drained by one and then by two worker processes (test/webhooks/worker-process.ts) started
// beforehand, timed from the backlog's commit to its last arrival, with every webhook-id
// checked for duplicates.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { Db } from '../src/db/db.ts';
import { recordEvent } from '../src/domain/events/record.ts';
import { createEndpoint } from '../src/domain/webhooks/endpoints.ts';
import { secretKey, signatureHeader } from '../src/domain/webhooks/signing.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createKeyring, generateKey, parseKey } from '../src/lib/encryption.ts';
import { createWebhookWorker } from '../src/workers/webhook-delivery.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { measures } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const THROUGHPUT_EVENTS = size(20_000, 100, 'BENCH_WEBHOOK_EVENTS');
const LATENCY_EVENTS = size(400, 10);
const LATENCY_INTERVAL_MS = 5;

export interface Receiver {
  url: string;
  count: number;
  arrivals: Map<string, number>;
  waiters: { n: number; resolve: () => void }[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    count: 0,
    arrivals: new Map(),
    waiters: [],
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.count++;
      receiver.arrivals.set(req.headers['webhook-id'] as string, performance.now());
      res.writeHead(204).end();
      for (const w of receiver.waiters.filter((w) => receiver.count >= w.n)) {
        receiver.waiters.splice(receiver.waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

const until = (receiver: Receiver, n: number) =>
  receiver.count >= n
    ? Promise.resolve()
    : new Promise<void>((resolve) => receiver.waiters.push({ n, resolve }));

function samplePayload(i: number) {
  return {
    help_request_id: randomUUID(),
    status: 'ack',
    priority: i % 50 === 0 ? 'crisis' : 'normal',
    external_ref: `INC-${100000 + i}`,
    origin: 'integration',
    actor: 'ServiceNow integration',
    version: 2,
    updated_at: new Date().toISOString(),
    note: 'x'.repeat(600),
  };
}

async function baseline(receiver: Receiver, n: number): Promise<number> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const body = JSON.stringify({
    type: 'help_request.updated',
    timestamp: new Date().toISOString(),
    data: samplePayload(0),
  });
  const key = secretKey(`whsec_${randomBytes(32).toString('base64')}`);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < n) {
        next++;
        const id = randomUUID();
        const ts = Math.floor(Date.now() / 1000);
        const res = await request(receiver.url, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(ts),
            'webhook-signature': signatureHeader([key], id, ts, body),
          },
          body,
        });
        await res.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return n / seconds;
}

/** User and system time together. */
const cpuMicros = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

/** A backlog of `n` events for the institution, committed in one transaction. */
export async function enqueue(db: Db, institutionId: string, n: number): Promise<void> {
  await db.transaction(async (tx) => {
    for (let offset = 0; offset < n; offset += 2_000) {
      const batch = Array.from({ length: Math.min(2_000, n - offset) }, (_, i) => ({
        type: 'help_request.updated',
        timestamp: new Date().toISOString(),
        data: samplePayload(offset + i),
      }));
      await tx.query(
        `INSERT INTO events (institution_id, type, help_request_id, payload, occurred_at)
         SELECT $1, p->>'type', (p->'data'->>'help_request_id')::uuid, p, now()
         FROM jsonb_array_elements($2::jsonb) AS p`,
        [institutionId, JSON.stringify(batch)],
      );
    }
  });
}

/** Worker processes (as separate deployments run them), each saying "ready" before work is queued. */
async function startWorkerProcesses(
  count: number,
  env: Record<string, string>,
): Promise<{ stop(): Promise<void> }> {
  const script = new URL('../test/webhooks/worker-process.ts', import.meta.url).pathname;
  const children: ChildProcess[] = [];
  await Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(process.execPath, [script], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker process exited ${code}`)));
      });
    }),
  );
  return {
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

/** Drains a backlog with 1 and then 2 worker processes; deliveries/s of each, and duplicates. */
async function measureProcesses(
  label: string,
  db: Db,
  env: Record<string, string>,
  receiver: Receiver,
  institutionId: string,
): Promise<void> {
  const rates: number[] = [];
  for (const count of [1, 2]) {
    const workers = await startWorkerProcesses(count, env);
    // The workers are idle now (their first polls done); the clock starts at the commit.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = receiver.count;
    const ids = receiver.arrivals.size;
    const started = performance.now();
    await enqueue(db, institutionId, THROUGHPUT_EVENTS);
    await until(receiver, before + THROUGHPUT_EVENTS);
    const seconds = (performance.now() - started) / 1000;
    // Every result recorded before the processes are stopped (a killed process leaves its last
    // results unrecorded, and their deliveries fall due again when the leases expire).
    for (let waited = 0; waited < 30_000; waited += 100) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE institution_id = $1 AND state = 'pending'`,
        [institutionId],
      );
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await workers.stop();
    const duplicates = receiver.count - before - (receiver.arrivals.size - ids);
    rates.push(THROUGHPUT_EVENTS / seconds);
    // A delivery sent again after an attempt that failed (as the worker saw it) is a retry.
    const failed = await db.query<{ n: number; errors: string | null }>(
      `SELECT count(*)::int AS n, string_agg(DISTINCT left(error, 80), '; ') AS errors FROM webhook_attempts
       WHERE institution_id = $1 AND outcome <> 'success' AND attempted_at >= now() - make_interval(secs => $2)`,
      [institutionId, seconds + 1],
    );
    process.stdout.write(
      `${label}: ${count} worker process${count > 1 ? 'es' : ''}: ${(THROUGHPUT_EVENTS / seconds).toFixed(0)} deliveries/s ` +
        `(${THROUGHPUT_EVENTS} events from commit to last arrival, ${seconds.toFixed(2)} s), ${duplicates} sent twice` +
        `, ${failed.rows[0].n} failed attempts${failed.rows[0].errors ? ` (${failed.rows[0].errors})` : ''}\n`,
    );
  }
  process.stdout.write(
    `${label}: two processes / one: ${(rates[1] / rates[0]).toFixed(2)}x (target >= 1.8x on a machine with a core for each)\n`,
  );
}

async function measure(
  label: string,
  db: Db,
  processes?: { databaseUrl: string; schema: string },
): Promise<void> {
  const receiver = await startReceiver();
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO institutions (slug, name) VALUES ($1, $1) RETURNING id',
    [`bench-${randomBytes(4).toString('hex')}`],
  );
  const institutionId = rows[0].id;
  const key = generateKey();
  const keyring = createKeyring(parseKey(key)!);
  const deps = { db, clock: systemClock, policy: { allowLoopback: true }, keyring };
  await createEndpoint(deps, institutionId, { url: receiver.url });

  const posts = size(10_000, 50);
  const baselineCpu = process.cpuUsage();
  const http = await baseline(receiver, posts);
  const cpuPerPost = cpuMicros(process.cpuUsage(baselineCpu)) / posts;
  const baseCount = receiver.count;

  // Throughput: a backlog of events, then one worker drains it.
  await enqueue(db, institutionId, THROUGHPUT_EVENTS);
  const worker = createWebhookWorker({ db, clock: systemClock, policy: { allowLoopback: true }, keyring });
  const started = performance.now();
  const workerCpu = process.cpuUsage();
  worker.start();
  await until(receiver, baseCount + THROUGHPUT_EVENTS);
  const cpuPerDelivery = cpuMicros(process.cpuUsage(workerCpu)) / THROUGHPUT_EVENTS;
  const elapsed = (performance.now() - started) / 1000;
  const perSecond = THROUGHPUT_EVENTS / elapsed;

  // Latency: events committed one by one while the worker runs; commit -> arrival.
  const committed = new Map<string, number>();
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const event = await db.transaction((tx) =>
      recordEvent(tx, {
        institutionId,
        type: 'help_request.updated',
        data: samplePayload(i),
        occurredAt: new Date(),
      }),
    );
    committed.set(event.id, performance.now());
    await new Promise((resolve) => setTimeout(resolve, LATENCY_INTERVAL_MS));
  }
  await until(receiver, baseCount + THROUGHPUT_EVENTS + LATENCY_EVENTS);
  await worker.stop();
  const latencies = [...committed]
    .map(([id, at]) => (receiver.arrivals.get(id) ?? Number.NaN) - at)
    .sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))];

  process.stdout.write(
    `${label}: ${perSecond.toFixed(0)} deliveries/s from one worker (${THROUGHPUT_EVENTS} events, ${elapsed.toFixed(2)} s); ` +
      `baseline plain signed POSTs ${http.toFixed(0)}/s (ratio ${(perSecond / http).toFixed(2)})\n` +
      `${label}: CPU time of this process (the receiver's included) ${cpuPerDelivery.toFixed(0)} us a delivery, ` +
      `${cpuPerPost.toFixed(0)} us a plain POST\n` +
      `${label}: commit -> delivery latency p50 ${pct(50).toFixed(1)} ms, p95 ${pct(95).toFixed(1)} ms, max ${pct(100).toFixed(1)} ms ` +
      `(${LATENCY_EVENTS} events, one every ${LATENCY_INTERVAL_MS} ms)\n` +
      `${label}: targets ${throughputTarget(label, perSecond, http)}; p50 < 50 ms: ${pct(50) < 50 ? 'met' : 'MISSED'}\n`,
  );
  if (processes) {
    await measureProcesses(
      label,
      db,
      {
        WORKER_DATABASE_URL: processes.databaseUrl,
        WORKER_SCHEMA: processes.schema,
        WORKER_ENCRYPTION_KEY: key,
        WORKER_INSTITUTION_ID: institutionId,
        WORKER_ATTEMPT_TIMEOUT_MS: '10000',
      },
      receiver,
      institutionId,
    );
  }
  await receiver.close();
}

/**
 * The throughput target of the database: PostgreSQL's worker within half of plain signed POSTs,
 * the embedded database's (one session, every claim and record in turn) 2,000 deliveries a second.
 */
function throughputTarget(label: string, perSecond: number, http: number): string {
  return label === 'postgres'
    ? `>= 0.5 of plain POSTs: ${perSecond / http >= 0.5 ? 'met' : 'MISSED'}`
    : `>= 2000 deliveries/s: ${perSecond >= 2000 ? 'met' : 'MISSED'}`;
}

export async function run(options: BenchOptions): Promise<void> {
  // BENCH_ONLY=postgres (or pglite) measures one database alone.
  if (measures('pglite')) {
    const lite = await openScratchPglite();
    try {
      await measure('pglite', lite);
    } finally {
      await lite.close();
    }
  }
  if (options.databaseUrl && measures('postgres')) {
    const db = await openScratchPostgres(options.databaseUrl, { prefix: 'bench_webhooks' });
    try {
      await measure('postgres', db, { databaseUrl: db.connectionString, schema: db.schema });
    } finally {
      await db.close();
    }
  }
}
