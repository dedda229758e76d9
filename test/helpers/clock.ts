// A clock a test moves by hand: it starts where the test says (by default the real current time,
// so signatures and sessions verify) and moves only when told.
import type { Clock } from '../../src/lib/clock.ts';

export interface TestClock extends Clock {
  advance(ms: number): void;
  set(to: Date | string): void;
}

export function testClock(start: Date | string = new Date()): TestClock {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
    set(to) {
      t = new Date(to).getTime();
    },
  };
}
