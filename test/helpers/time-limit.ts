// Time limits that scale with the machine's load. A limit in a test is a guard against a hang,
// never a measure: on a 2-core machine shared with other work a step can take ten times as long
// as on a quiet one, and must still pass. TEST_TIME_SCALE sets the factor; by default it is the
// load average per core when the test file starts, at least 1.
import os from 'node:os';

export const TIME_SCALE =
  Number(process.env.TEST_TIME_SCALE) || Math.max(1, os.loadavg()[0] / os.availableParallelism());

/** `ms` scaled by the machine's load (TIME_SCALE), for a deadline or a test's timeout. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}
