// Benchmark: `ssp push roster` of a 100,000-row CSV (parsed, paged by 5000 and pushed by the
// real command, in a process of its own) against the service's own time for the same pages
// (the same 20 bodies, built beforehand, posted one after the other). Both are timed by the
// server, from the first request's arrival to the last response, so the CLI's start-up is
// reported apart. The client's peak RSS (GNU time's figure, else VmHWM polled in /proc) for
// 100,000 rows and for 500,000 (dry run) shows it does not grow with the file; beside it the
// floors: Node alone, `ssp push --help` on a first run (empty compile cache) and after, and the
// 500,000 rows again on an empty cache, as the very first run on a machine would be. The
// command runs as installed, through bin/ssp.js, with a compile cache of its own. PostgreSQL
// when a database is given (a scratch database, dropped afterwards), then PGlite.
//
//   DATABASE_URL=postgres://... npm run bench -- push

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { issueRosterSecret } from '../src/domain/secrets/roster-secrets.ts';
import { seedFeedInstitution as seed, startFeedApp } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const ROWS = size(100_000, 200, 'BENCH_PUSH_ROWS');
const BIG_ROWS = size(500_000, 300, 'BENCH_PUSH_BIG_ROWS');
const PAGE = size(5000, 100);
const CLI = path.resolve('bin/ssp.js');

const row = (i: number, tag: string) => ({
  email: `${tag}${i}@example.edu`,
  student_id_ext: `${tag.toUpperCase()}${i}`,
  first_name: `Given${i}`,
  last_name: `Family${i}`,
  start_date: '2026-02-23',
});

function writeCsv(file: string, rows: number, tag: string): void {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'email,student_id_ext,first_name,last_name,start_date\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const r = row(i, tag);
    chunk += `${r.email},${r.student_id_ext},${r.first_name},${r.last_name},${r.start_date}\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
}

/**
 * GNU time reports a process's peak RSS as the kernel counted it (the rusage of the exited
 * child); polling /proc misses the peak of a process shorter than the poll interval.
 */
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/**
 * Runs the CLI (or, with `bare`, Node alone on `args`) and measures its peak RSS: by GNU time
 * when there is one, else by polling VmHWM in /proc until it exits.
 */
function runCli(
  args: string[],
  env: Record<string, string>,
  bare = false,
): Promise<{ code: number; ms: number; peakMb: number; out: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const command = [process.execPath, ...(bare ? args : [CLI, ...args])];
    const timeFile = path.join(os.tmpdir(), `ssp-bench-push-time-${process.pid}`);
    const child = TIME
      ? spawn(TIME, ['-f', '%M', '-o', timeFile, ...command], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(command[0], command.slice(1), {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let peak = 0;
    // Polled only without GNU time (whose child is the time process, not Node).
    const poll = TIME
      ? undefined
      : setInterval(() => {
          try {
            const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
            const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
            peak = Math.max(peak, kb);
          } catch {
            // exited between polls
          }
        }, 50);
    child.on('exit', (code) => {
      clearInterval(poll);
      const ms = performance.now() - started;
      if (TIME) {
        // The time file's last line is the figure (a line before it tells a non-zero exit).
        const lines = fs.readFileSync(timeFile, 'utf8').trim().split('\n');
        fs.rmSync(timeFile, { force: true });
        peak = Number(lines.at(-1));
      }
      resolve({ code: code ?? 1, ms, peakMb: peak / 1024, out });
    });
  });
}

async function benchOne(kind: 'pglite' | 'postgres', databaseUrl?: string): Promise<void> {
  const { db, runtime, app } = await startFeedApp(kind, databaseUrl, 'bench_push', {
    rosterRateLimitPerMinute: 1_000_000,
  });
  // The server's own clock: first request in, last response out.
  const window = { first: 0, last: 0, requests: 0 };
  app.addHook('onRequest', async () => {
    if (window.requests++ === 0) window.first = performance.now();
  });
  app.addHook('onResponse', async () => {
    window.last = performance.now();
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-bench-push-'));
  // The command's compile cache, empty at first: the first run shows the cost of a cold start.
  const cache = { NODE_COMPILE_CACHE: path.join(dir, 'compile-cache') };
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const baseline = await seed(db, 'bench-push-baseline');
    const client = await seed(db, 'bench-push-client');
    const big = await seed(db, 'bench-push-big');
    const secrets = {
      baseline: (await issueRosterSecret(runtime.db, { id: baseline.id, slug: baseline.slug })).secret,
      client: (await issueRosterSecret(runtime.db, { id: client.id, slug: client.slug })).secret,
      big: (await issueRosterSecret(runtime.db, { id: big.id, slug: big.slug })).secret,
    };
    const file = path.join(dir, 'roster.csv');
    writeCsv(file, ROWS, 'c');
    const bigFile = path.join(dir, 'big.csv');
    writeCsv(bigFile, BIG_ROWS, 'b');
    process.stdout.write(
      `  ${ROWS} rows (${(fs.statSync(file).size / 1e6).toFixed(1)} MB of CSV), pages of ${PAGE}; ${BIG_ROWS} rows (${(fs.statSync(bigFile).size / 1e6).toFixed(1)} MB) for memory\n`,
    );

    // The server's own time: the same rows as prebuilt JSON bodies, one page after another.
    const bodies: string[] = [];
    for (let start = 0; start < ROWS; start += PAGE) {
      const students = Array.from({ length: Math.min(PAGE, ROWS - start) }, (_, k) => row(start + k, 'c'));
      bodies.push(JSON.stringify({ cohort_id: baseline.cohortId, students }));
    }
    window.requests = 0;
    for (const body of bodies) {
      const res = await request(`${url}/api/sis/sync`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets.baseline}` },
        body,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 200)}`);
    }
    const serverMs = window.last - window.first;
    bodies.length = 0;

    // Floors: Node doing nothing; the command starting on an empty compile cache, then a warm one.
    const node = await runCli(['-e', ''], {}, true);
    const coldHelp = await runCli(['push', '--help'], cache);
    const idle = await runCli(['push', '--help'], cache);

    // The real command on the CSV file.
    window.requests = 0;
    const cli = await runCli(
      [
        '--url',
        url,
        'push',
        'roster',
        '--cohort',
        client.cohortId,
        '--state',
        path.join(dir, 'state.json'),
        '--errors',
        path.join(dir, 'errors.csv'),
        file,
      ],
      { SSP_ROSTER_SECRET: secrets.client, ...cache },
    );
    if (cli.code !== 0) throw new Error(`ssp push exited ${cli.code}: ${cli.out.slice(-500)}`);
    const clientMs = window.last - window.first;
    const startup = cli.ms - clientMs;

    const bigArgs = [
      '--url',
      url,
      'push',
      'roster',
      '--dry-run',
      '--cohort',
      big.cohortId,
      '--errors',
      path.join(dir, 'errors-big.csv'),
      bigFile,
    ];
    const bigRun = await runCli(bigArgs, { SSP_ROSTER_SECRET: secrets.big, ...cache });
    if (bigRun.code !== 0) throw new Error(`ssp push (big) exited ${bigRun.code}: ${bigRun.out.slice(-500)}`);
    // The same on an empty compile cache: a first run ever also strips every source of its types.
    const coldRun = await runCli(bigArgs, {
      SSP_ROSTER_SECRET: secrets.big,
      NODE_COMPILE_CACHE: path.join(dir, 'compile-cache-cold'),
    });
    if (coldRun.code !== 0)
      throw new Error(`ssp push (cold) exited ${coldRun.code}: ${coldRun.out.slice(-500)}`);

    const ratio = clientMs / serverMs;
    const rows = [
      [
        `service alone: ${Math.ceil(ROWS / PAGE)} prebuilt pages`,
        serverMs,
        ROWS / (serverMs / 1000),
        '',
        '1.00',
      ],
      [
        'ssp push roster (CSV -> pages -> HTTP)',
        clientMs,
        ROWS / (clientMs / 1000),
        cli.peakMb.toFixed(1),
        ratio.toFixed(2),
      ],
      [
        `ssp push roster --dry-run, ${BIG_ROWS} rows`,
        bigRun.ms,
        BIG_ROWS / (bigRun.ms / 1000),
        bigRun.peakMb.toFixed(1),
        '',
      ],
      [
        `  the same, empty compile cache`,
        coldRun.ms,
        BIG_ROWS / (coldRun.ms / 1000),
        coldRun.peakMb.toFixed(1),
        '',
      ],
      ['ssp push --help (start-up only)', idle.ms, 0, idle.peakMb.toFixed(1), ''],
      ['ssp push --help, empty compile cache', coldHelp.ms, 0, coldHelp.peakMb.toFixed(1), ''],
      ["node -e '' (Node alone)", node.ms, 0, node.peakMb.toFixed(1), ''],
    ];
    process.stdout.write(
      '  run                                         ms   rows/s   client peak RSS MB   x service\n',
    );
    for (const [name, ms, rate, rss, x] of rows) {
      process.stdout.write(
        `  ${String(name).padEnd(40)} ${Number(ms).toFixed(0).padStart(7)} ${Number(rate).toFixed(0).padStart(8)} ${String(rss).padStart(20)} ${String(x).padStart(11)}\n`,
      );
    }
    process.stdout.write(
      `  the command's own start-up (process, imports) adds ${startup.toFixed(0)} ms before its first request\n`,
    );
    process.stdout.write(
      `  ${ratio <= 1.3 ? 'meets' : 'MISSES'} the target: within 1.3x of the service's own time (${ratio.toFixed(2)}x)\n`,
    );
    const peak = Math.max(cli.peakMb, bigRun.peakMb);
    process.stdout.write(
      `  ${peak < 100 ? 'meets' : 'MISSES'} the memory target: client peak RSS under 100 MB (${cli.peakMb.toFixed(1)} MB for ${ROWS} rows, ${bigRun.peakMb.toFixed(1)} MB for ${BIG_ROWS}; ${(bigRun.peakMb - cli.peakMb).toFixed(1)} MB between them)\n`,
    );
    process.stdout.write(
      `  load average: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
  } finally {
    await agent.close();
    await app.close();
    await runtime.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(options: BenchOptions): Promise<void> {
  if (options.databaseUrl) {
    process.stdout.write('--- postgres ---\n');
    await benchOne('postgres', options.databaseUrl);
  }
  process.stdout.write('--- pglite ---\n');
  await benchOne('pglite');
}
