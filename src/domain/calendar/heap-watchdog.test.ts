// A worker whose heap grows as one ever-larger object (an array that keeps doubling its backing
// store; ical.js's date caches under a rule that never matched did the same as a dictionary)
// aborts the whole process at V8's limit, resourceLimits or not; the
// watchdog stops it first and the process goes on, its next worker working normally. Each case
// runs in its own process, so the abort is seen from outside.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

const watchdog = new URL('./heap-watchdog.ts', import.meta.url).href;

/** A process that runs three growing workers, one after another, then a small one. */
function script(watched: boolean): string {
  return `
import { Worker } from 'node:worker_threads';
import { hardLimitMb, watchHeap } from ${JSON.stringify(watchdog)};
const LIMIT = 48;
const grow = "const found = []; for (let i = 0; ; i++) found.push(i + 0.5);";
const run = (code, watched) => new Promise((resolve) => {
  const worker = new Worker(code, { eval: true, resourceLimits: {
    maxOldGenerationSizeMb: ${watched} ? hardLimitMb(LIMIT) : LIMIT, maxYoungGenerationSizeMb: 32 } });
  let outcome = 'exited';
  if (watched) watchHeap(worker, LIMIT, (used) => { outcome = 'stopped by the watchdog'; });
  worker.on('error', (error) => { outcome = error.code; });
  worker.on('message', (m) => { outcome = m; });
  worker.on('exit', () => resolve(outcome));
});
for (let i = 0; i < 3; i++) console.log(await run(grow, ${watched}));
console.log(await run("process.getBuiltinModule('node:worker_threads').parentPort.postMessage('a new worker works')", ${watched}));
`;
}

const dir = mkdtempSync(path.join(tmpdir(), 'heap-watchdog-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function runScript(watched: boolean) {
  const file = path.join(dir, `${watched ? 'watched' : 'unwatched'}.mjs`);
  writeFileSync(file, script(watched));
  return spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 120_000 });
}

test('without the watchdog a growing worker aborts the process: "Reached heap limit" or an allocation failure', () => {
  const result = runScript(false);
  assert.ok(result.status !== 0 || result.signal !== null, result.stdout);
  assert.match(result.stderr, /heap out of memory/);
});

test('with the watchdog the worker is stopped, the process goes on and its next worker works', () => {
  const result = runScript(true);
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split('\n'), [
    'stopped by the watchdog',
    'stopped by the watchdog',
    'stopped by the watchdog',
    'a new worker works',
  ]);
});
