// Every benchmark runs to the end at tiny sizes (BENCH_SMOKE=1, bench/size.ts), on PGlite and,
// when TEST_DATABASE_URL is set, on PostgreSQL too, so that a benchmark can never stop working
// unnoticed. Figures are not checked: at these sizes they mean nothing. About a minute on a quiet
// 2-core machine; several on a loaded one, hence the test's own time limit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { childNodeFlags } from './helpers/child-flags.ts';
import { testTimeout } from './helpers/time-limit.ts';

const root = path.resolve(import.meta.dirname, '..');

test('npm run bench runs every benchmark to the end at smoke sizes', {
  timeout: testTimeout(600_000),
}, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_SMOKE: '1' };
  // The benchmark picks its database from these; only the test's own PostgreSQL may be used.
  delete env.DATABASE_URL;
  delete env.BENCH_DATABASE_URL;
  delete env.TEST_DATABASE_URL;
  const postgres = process.env.TEST_DATABASE_URL;
  if (postgres) env.BENCH_DATABASE_URL = postgres;
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [...childNodeFlags, 'bench/run.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
  assert.equal(code, 0, `bench exited ${code}:\n${output.slice(-4000)}`);
  // Every benchmark of the full run, as bench/run.ts lists them, ran to its end.
  const listed = /^benchmarks: (.+)$/m.exec(output)?.[1].split(', ') ?? [];
  assert.ok(listed.length >= 12, `benchmarks listed: ${listed.join(', ')}`);
  for (const name of listed) assert.match(output, new RegExp(`=== ${name} done in`), name);
  assert.match(output, postgres ? /databases: PGlite and PostgreSQL/ : /databases: PGlite only/);
  if (postgres) assert.match(output, /--- postgres ---/);
});
