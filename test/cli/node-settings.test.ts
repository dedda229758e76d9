// Every long-running entry runs with the same memory settings (bin/node-settings.js), however it
// is started: `npm start`, `node bin/serve.js`, `ssp serve` and `ssp worker`. Each is spawned as
// an operator would start it, and the running process's own command line and environment are
// read from /proc (Linux), then it is stopped: what is checked is the process that serves.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const linux = fs.existsSync('/proc/self/cmdline');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-node-settings-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const env = {
  ...process.env,
  PORT: '0',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  MALLOC_TRIM_THRESHOLD_: undefined,
  MALLOC_MMAP_THRESHOLD_: undefined,
  SSP_NODE_SETTINGS_APPLIED: undefined,
};

const read = (pid: number, file: string) => {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');
  } catch {
    return [];
  }
};

/** The process and its descendants (npm start runs node under npm and a shell). */
function family(pid: number): number[] {
  const children = read(pid, `task/${pid}/children`)[0]?.trim().split(/\s+/).filter(Boolean) ?? [];
  return [pid, ...children.flatMap((child) => family(Number(child)))];
}

/** The command line and environment of the process running `script`, once it has its settings. */
async function settingsOf(child: ChildProcess, script: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    for (const pid of family(child.pid ?? 0)) {
      const argv = read(pid, 'cmdline');
      if (argv.some((a) => a.endsWith(script)) && argv.some((a) => a.startsWith('--heap-growing-percent')))
        return { pid, argv, environ: read(pid, 'environ') };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no process of ${script} with the settings within 60 s`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    for (const pid of family(child.pid ?? 0).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  });
}

const node = process.execPath;
const entries: [string, string, string[], string][] = [
  ['npm start', 'npm', ['start', '--silent'], 'bin/serve.js'],
  ['node bin/serve.js', node, ['bin/serve.js'], 'bin/serve.js'],
  ['ssp serve', node, ['bin/ssp.js', 'serve'], 'bin/ssp.js'],
  ['ssp worker', node, ['bin/ssp.js', '--json', 'worker'], 'bin/ssp.js'],
];

for (const [name, command, args, script] of entries)
  test(`${name} runs with the memory settings`, { skip: !linux && 'reads /proc' }, async () => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'ignore' });
    try {
      const { pid, argv, environ } = await settingsOf(child, script);
      const flags = argv.filter((a) => a.startsWith('--'));
      assert.ok(flags.includes('--max-semi-space-size=1'), argv.join(' '));
      assert.ok(flags.includes('--heap-growing-percent=50'), argv.join(' '));
      assert.ok(environ.includes('MALLOC_TRIM_THRESHOLD_=131072'));
      assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=32768'));
      // Restarted in place: the child itself (or npm's node) is the process, no wrapper between.
      if (command === node) assert.equal(pid, child.pid);
    } finally {
      await stop(child);
    }
  });

test('a setting given on the command line is kept, the others added', {
  skip: !linux && 'reads /proc',
}, async () => {
  const child = spawn(node, ['--max-semi-space-size=4', 'bin/serve.js'], { cwd: root, env, stdio: 'ignore' });
  try {
    const { argv } = await settingsOf(child, 'bin/serve.js');
    const flags = argv.filter((a) => a.startsWith('--'));
    assert.deepEqual(
      flags.filter((a) => a.startsWith('--max-semi-space-size')),
      ['--max-semi-space-size=4'],
    );
    assert.ok(flags.includes('--heap-growing-percent=50'));
  } finally {
    await stop(child);
  }
});

test('ssp push runs with the memory settings too (a OneRoster push holds every enrollment)', {
  skip: !linux && 'reads /proc',
}, async () => {
  // A service that refuses connections: the push retries with backoff, long enough to be read.
  const roster = path.join(dataDir, 'roster.csv');
  fs.writeFileSync(roster, 'email,student_id_ext\ns1@example.edu,S1\n');
  const args = ['bin/ssp.js', '--url', 'http://127.0.0.1:9', 'push', 'roster', '--cohort', 'c', roster];
  const child = spawn(node, [...args, '--state', path.join(dataDir, 'state.json')], {
    cwd: root,
    env: { ...env, SSP_ROSTER_SECRET: 'ssp_roster_test' },
    stdio: 'ignore',
  });
  try {
    const { pid, argv, environ } = await settingsOf(child, 'bin/ssp.js');
    assert.ok(argv.includes('--max-semi-space-size=1'), argv.join(' '));
    assert.ok(environ.includes('MALLOC_TRIM_THRESHOLD_=131072'));
    assert.equal(pid, child.pid);
  } finally {
    await stop(child);
  }
});
