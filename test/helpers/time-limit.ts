// Time limits that scale with the machine's load. A limit in a test is a guard against a hang,
// never a measure: on a 2-core machine shared with other work a step can take ten times as long
// as on a quiet one, and must still pass. TEST_TIME_SCALE sets the factor; by default it is the
// load average per core at the time the limit is taken, at least 1.
import os from 'node:os';

/** The factor now: TEST_TIME_SCALE, else the load average per core, at least 1. */
export function timeScale(): number {
  return Number(process.env.TEST_TIME_SCALE) || Math.max(1, os.loadavg()[0] / os.availableParallelism());
}

/** `ms` scaled by the machine's load now, for a deadline taken while a test runs. */
export function scaled(ms: number): number {
  return Math.round(ms * timeScale());
}

/**
 * A test's own timeout (its `timeout` option), scaled by at least 3. It is taken when its file
 * is loaded, and `npm test` loads every file of a shard at the start of the run (test/run.ts),
 * before the run's own load shows in the load average: three per core is about what the suite
 * alone puts on a 2-core machine, which is what a file started in the middle of the run saw
 * when each file had its own process.
 */
export function testTimeout(ms: number): number {
  return Math.round(ms * Math.max(3, timeScale()));
}
