// Every benchmark runs to the end at tiny sizes (BENCH_SMOKE=1, bench/size.ts), on PGlite and,
// when TEST_DATABASE_URL is set, on PostgreSQL too, so that a benchmark can never stop working
// unnoticed. Figures are not checked: at these sizes they mean nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..');
const benchmarks = [
  'roster',
  'enrolments',
  'help-sync',
  'webhooks',
  'push',
  'sign-in',
  'calendar',
  'student-home',
  'listings',
  'console',
  'memory',
];

test('npm run bench runs every benchmark to the end at smoke sizes', { timeout: 300_000 }, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_SMOKE: '1' };
  // The benchmark picks its database from these; only the test's own PostgreSQL may be used.
  delete env.DATABASE_URL;
  delete env.BENCH_DATABASE_URL;
  delete env.TEST_DATABASE_URL;
  const postgres = process.env.TEST_DATABASE_URL;
  if (postgres) env.BENCH_DATABASE_URL = postgres;
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['bench/run.ts'], {
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
  for (const name of benchmarks) assert.match(output, new RegExp(`=== ${name} done in`), name);
  assert.match(output, postgres ? /databases: PGlite and PostgreSQL/ : /databases: PGlite only/);
  if (postgres) assert.match(output, /--- postgres ---/);
});
