// `npm test`: every test file, in a few processes that each run their share of the files one
// after the other (node --test --test-isolation=none --test-shard=i/n), rather than a process
// per file: a file no longer pays for its own process, the app's modules and PGlite's start-up
// code (docs/development.md, "The test suite's time"). What the whole run shares is set up
// here once, before the shards start, and they inherit it: one Chromium, and with
// TEST_DATABASE_URL the migrated template PostgreSQL test databases are cloned from.
// Each shard's report (node's spec reporter) goes to this process's output a whole line at a
// time, so the shards' lines interleave but never mix; their counts are added up at the end, and
// the run fails when any shard fails. Arguments are passed to every shard (for example
// `npm test -- --test-name-pattern=roster`). TEST_SHARDS sets how many (4 by default: on two
// cores, more shards than cores keep both busy while some wait on a browser, a server or a timer).
// --test-force-exit: a shard ends when its last file's tests have, whatever handle a file left.
import { spawn } from 'node:child_process';
import { globalSetup, globalTeardown } from './global-setup.ts';

const SHARDS = Number(process.env.TEST_SHARDS) || 4;
const PATTERNS = ['test/**/*.test.ts', 'src/**/*.test.ts'];

/** The spec reporter's closing counts ("ℹ pass 473"), added up over the shards. */
const totals = new Map<string, number>();
function count(lines: string): void {
  for (const [, name, value] of lines.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
    totals.set(name, (totals.get(name) ?? 0) + Number(value));
  }
}

function runShard(index: number, args: string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '--liftoff-only',
      '--test',
      '--test-isolation=none',
      '--test-force-exit',
      `--test-shard=${index}/${SHARDS}`,
      '--test-timeout=300000',
      ...args,
      ...PATTERNS,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const forward = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const end = pending.lastIndexOf('\n');
      if (end < 0) return;
      const lines = pending.slice(0, end + 1);
      pending = pending.slice(end + 1);
      count(lines);
      out.write(lines);
    });
    stream.on('end', () => {
      if (pending) out.write(`${pending}\n`);
    });
  };
  forward(child.stdout, process.stdout);
  forward(child.stderr, process.stderr);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

await globalSetup();
let failed = false;
try {
  const codes = await Promise.all(
    Array.from({ length: SHARDS }, (_, i) => runShard(i + 1, process.argv.slice(2))),
  );
  failed = codes.some((code) => code !== 0);
} finally {
  await globalTeardown();
}
// A run in which no test ran (a pattern that matches nothing, shards that died before reporting)
// proves nothing, so it fails too.
const none = (totals.get('tests') ?? 0) === 0;
failed ||= none;
const summary = [...totals].map(([name, value]) => `${name} ${value}`).join(', ');
console.log(
  `\n${SHARDS} shards: ${summary || 'no counts reported'}${none ? '; no test ran' : ''}${failed ? '; FAILED' : ''}`,
);
process.exitCode = failed ? 1 : 0;
