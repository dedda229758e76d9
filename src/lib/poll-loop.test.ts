// The workers' polling loop: wake() runs the next round at once, whether the loop sleeps or is
// in the middle of a round (a pull asked for while the worker was looking finds it anyway).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollLoop } from './poll-loop.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('wake() ends the sleep, and a wake during a round skips the sleep after it', async () => {
  let rounds = 0;
  let release: (() => void) | undefined;
  let holdNext = false;
  const loop = pollLoop({
    round: async () => {
      rounds++;
      if (holdNext) {
        holdNext = false;
        await new Promise<void>((resolve) => (release = resolve));
      }
      return { claimed: 0 };
    },
    full: () => false,
    pollMs: 60_000,
    onError: () => {},
  });
  loop.start();
  await tick(20);
  assert.equal(rounds, 1, 'the first round at start, then a sleep of a minute');
  holdNext = true;
  loop.wake();
  await tick(20);
  assert.equal(rounds, 2, 'woken out of the sleep');
  loop.wake(); // during round 2, which is held
  release?.();
  await tick(20);
  assert.equal(rounds, 3, 'the wake during the round is not lost');
  await tick(50);
  assert.equal(rounds, 3, 'then it sleeps again');
  await loop.stop();
});
