// The embedded default's memory: the real server as `npm start` runs it (PGlite in DATA_DIR, its
// workers running) holding BENCH_MEMORY_STUDENTS students (60,000), its RSS idle after a
// restart and after a nightly push of every student again with a change (pages of 5000 over
// HTTP), as the kernel counts it (VmRSS, and VmHWM for the peak). Targets: idle under 200 MB,
// under 400 MB after the nightly push. EMBEDDED_SHARED_BUFFERS and other settings of the
// server pass through from the environment, so `EMBEDDED_SHARED_BUFFERS=128MB npm run bench
// memory` measures PGlite's own default. PGlite only: a PostgreSQL deployment's database
// memory is the database server's, not the service's.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { freePort } from '../test/helpers/free-port.ts';
import { migratedDataDir } from '../test/helpers/scratch-db.ts';
import type { BenchOptions } from './run.ts';
import { SMOKE, size } from './size.ts';

const STUDENTS = size(60_000, 300, 'BENCH_MEMORY_STUDENTS');
const PAGE = size(5000, 100);
const OPERATOR_TOKEN = 'ssp_op_bench-memory-operator-token';

const status = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) /
  1024;

interface Server {
  child: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

/**
 * What `npm start` gives node, read from package.json: the environment it sets (`env NAME=value`)
 * and node's arguments. The memory settings themselves are the entry's (bin/node-settings.js: it
 * restarts in place with them), so the server measured has them however it is started.
 */
function startCommand(): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../package.json'), 'utf8'));
  const words = String(pkg.scripts.start).split(/\s+/);
  const node = words.indexOf('node');
  const env = Object.fromEntries(
    words
      .slice(0, node)
      .filter((word) => /^[A-Z_]+=/.test(word))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );
  return { env, args: words.slice(node + 1) };
}

async function startServer(dataDir: string): Promise<Server> {
  const port = await freePort();
  const start = startCommand();
  const child = spawn(process.execPath, start.args, {
    env: {
      ...process.env,
      ...start.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      OPERATOR_TOKEN,
      LOG_LEVEL: 'warn',
      ROSTER_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    try {
      const res = await request(`${origin}/admin/v1/institutions`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    child,
    origin,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function call(
  origin: string,
  agent: Agent,
  method: 'POST' | 'GET',
  url: string,
  token: string,
  body?: unknown,
) {
  const res = await request(`${origin}${url}`, {
    method,
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const student = (i: number, version: number) => ({
  email: `student${i}@night.example.edu`,
  student_id_ext: `N${i}`,
  first_name: `Given${i}`,
  last_name: `Family${i}v${version}`,
  start_date: '2026-02-23',
});

async function pushAll(origin: string, agent: Agent, secret: string, cohortId: string, version: number) {
  for (let start = 0; start < STUDENTS; start += PAGE) {
    const students = Array.from({ length: Math.min(PAGE, STUDENTS - start) }, (_, k) =>
      student(start + k, version),
    );
    await call(origin, agent, 'POST', '/api/sis/sync', secret, { cohort_id: cohortId, students });
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, size(5_000, 500)));

export async function run(_options: BenchOptions): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-bench-memory-'));
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  try {
    // The database with its students: copied from the tests' migrated data directory (creating
    // a cluster takes a minute on a busy machine and is not what is measured), filled by the
    // server.
    await migratedDataDir(dataDir);
    let server = await startServer(dataDir);
    await call(server.origin, agent, 'POST', '/admin/v1/institutions', OPERATOR_TOKEN, {
      slug: 'night',
      name: 'Night College',
    });
    const cohort = await call(
      server.origin,
      agent,
      'POST',
      '/admin/v1/institutions/night/cohorts',
      OPERATOR_TOKEN,
      {
        name: 'All',
        clock: 'individual',
      },
    );
    const { secret } = await call(
      server.origin,
      agent,
      'POST',
      '/admin/v1/institutions/night/roster-secret',
      OPERATOR_TOKEN,
    );
    let started = performance.now();
    await pushAll(server.origin, agent, secret, cohort.id, 0);
    const seedSeconds = (performance.now() - started) / 1000;
    // At smoke sizes the same server goes on (a restart would double the smoke run's time).
    if (!SMOKE) await server.stop();
    await agent.close();

    // A restart, idle, then the nightly push.
    const nightly = new Agent({ keepAliveTimeout: 30_000 });
    if (!SMOKE) server = await startServer(dataDir);
    const pid = server.child.pid!;
    await settle();
    const idle = status(pid, 'VmRSS');
    const startPeak = status(pid, 'VmHWM');
    started = performance.now();
    await pushAll(server.origin, nightly, secret, cohort.id, 1);
    const pushSeconds = (performance.now() - started) / 1000;
    const afterPush = status(pid, 'VmRSS');
    await settle();
    const settled = status(pid, 'VmRSS');
    const peak = status(pid, 'VmHWM');
    await nightly.close();
    await server.stop();

    const shared = process.env.EMBEDDED_SHARED_BUFFERS ?? 'the default';
    process.stdout.write(
      `  ${STUDENTS} students pushed in pages of ${PAGE}: first push ${seedSeconds.toFixed(1)} s, nightly push ${pushSeconds.toFixed(1)} s ` +
        `(EMBEDDED_SHARED_BUFFERS ${shared})\n` +
        `  RSS idle after a restart ${idle.toFixed(0)} MB (peak while starting ${startPeak.toFixed(0)} MB); ` +
        `right after the nightly push ${afterPush.toFixed(0)} MB, ${(size(5_000, 500) / 1000).toFixed(1)} s later ${settled.toFixed(0)} MB; peak ${peak.toFixed(0)} MB\n` +
        `  targets: idle < 200 MB ${idle < 200 ? 'met' : 'MISSED'}; after the nightly push < 400 MB ${settled < 400 ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
