// npm run bench: runs every benchmark in one process and prints its figures; `npm run bench
// NAME` runs one. PGlite always; PostgreSQL as well when BENCH_DATABASE_URL (else DATABASE_URL,
// else TEST_DATABASE_URL) names one: each benchmark works in a scratch database it drops.
// BENCH_SMOKE=1 runs every benchmark at tiny sizes (bench/size.ts), as test/bench-smoke.test.ts
// does; the full run is never part of npm test.

import { run as background } from './background.ts';
import { run as calendar, calendarBench } from './calendar.ts';
import { run as consolePages } from './console.ts';
import { run as enrolments } from './enrolments.ts';
import { run as helpSync } from './help-sync.ts';
import { run as inbox } from './inbox.ts';
import { run as listings } from './listings.ts';
import { run as memory } from './memory.ts';
import { run as oneroster } from './oneroster.ts';
import { run as onerosterLimits } from './oneroster-limits.ts';
import { run as privacy } from './privacy.ts';
import { run as push } from './push.ts';
import { run as roster } from './roster.ts';
import { run as signIn } from './sign-in.ts';
import { run as studentHome } from './student-home.ts';

import { run as webhooks } from './webhooks.ts';

export interface BenchOptions {
  /** PostgreSQL to measure against, besides PGlite. */
  databaseUrl?: string;
}

/** `only`: run when named (a part of another benchmark), not in the full run. */
type Bench = { name: string; run: (options: BenchOptions) => Promise<void>; only?: boolean };

const benches: Bench[] = [
  { name: 'roster', run: roster },
  { name: 'enrolments', run: enrolments },
  { name: 'help-sync', run: helpSync },
  { name: 'webhooks', run: webhooks },
  { name: 'push', run: push },
  { name: 'oneroster', run: oneroster },
  { name: 'oneroster-limits', run: onerosterLimits, only: true },
  { name: 'sign-in', run: signIn },
  { name: 'calendar', run: calendar },
  { name: 'calendar-fetch', run: calendarBench({ fetch: true, stall: false }), only: true },
  { name: 'calendar-stall', run: calendarBench({ fetch: false, stall: true }), only: true },
  { name: 'student-home', run: studentHome },
  { name: 'listings', run: listings },
  { name: 'console', run: consolePages },
  { name: 'inbox', run: inbox },
  { name: 'memory', run: memory },
  { name: 'background', run: background },
  { name: 'privacy', run: privacy },
];

const databaseUrl =
  process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const only = process.argv[2];
if (only && !benches.some((bench) => bench.name === only)) {
  process.stderr.write(`no benchmark named ${only}; one of ${benches.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}
process.stdout.write(
  `databases: PGlite${databaseUrl ? ` and PostgreSQL (${new URL(databaseUrl).host})` : ' only (set BENCH_DATABASE_URL for PostgreSQL)'}\n`,
);
const chosen = benches.filter((bench) => (only ? bench.name === only : !bench.only));
process.stdout.write(`benchmarks: ${chosen.map((bench) => bench.name).join(', ')}\n`);
for (const bench of chosen) {
  const started = performance.now();
  process.stdout.write(`\n=== ${bench.name} ===\n`);
  await bench.run({ databaseUrl });
  process.stdout.write(
    `=== ${bench.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s ===\n`,
  );
}
