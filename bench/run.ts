// npm run bench: runs every benchmark in one process and prints its figures.
// PGlite always; PostgreSQL as well when DATABASE_URL is set. Never part of npm test.

import { run as calendar, calendarBench } from './calendar.ts';
import { run as consolePages } from './console.ts';
import { run as enrolments } from './enrolments.ts';
import { run as helpSync } from './help-sync.ts';
import { run as listings } from './listings.ts';
import { run as push } from './push.ts';
import { run as roster } from './roster.ts';
import { run as signIn } from './sign-in.ts';
import { run as studentHome } from './student-home.ts';

export interface BenchOptions {
  /** PostgreSQL to measure against, besides PGlite. */
  databaseUrl?: string;
}

import { run as webhooks } from './webhooks.ts';

/** `only`: run when named (a part of another benchmark), not in the full run. */
type Bench = { name: string; run: (options: BenchOptions) => Promise<void>; only?: boolean };

const benches: Bench[] = [
  { name: 'roster', run: roster },
  { name: 'enrolments', run: enrolments },
  { name: 'help-sync', run: helpSync },
  { name: 'webhooks', run: webhooks },
  { name: 'push', run: push },
  { name: 'sign-in', run: signIn },
  { name: 'calendar', run: calendar },
  { name: 'calendar-fetch', run: calendarBench({ fetch: true, stall: false }), only: true },
  { name: 'calendar-stall', run: calendarBench({ fetch: false, stall: true }), only: true },
  { name: 'student-home', run: studentHome },
  { name: 'listings', run: listings },
  { name: 'console', run: consolePages },
];

const only = process.argv[2];
for (const bench of benches) {
  if (only ? bench.name !== only : bench.only) continue;
  process.stdout.write(`\n=== ${bench.name} ===\n`);
  await bench.run({ databaseUrl: process.env.DATABASE_URL });
}
