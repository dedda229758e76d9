// Slices of background work: a loop gets a turn of the event loop once its slice is over, and
// only then; a sliced queue runs jobs at once within the slice, the rest in order on later turns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSlicedQueue, slices } from './turns.ts';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test('a loop is paused only once its slice is over, and a timer due meanwhile runs in the pause', async () => {
  // Slices of 200 ms: a loaded machine may stop this thread for tens of milliseconds anywhere.
  const { pause } = slices(200);
  // Started from the event loop's check phase, so that the pause's setImmediate comes on the
  // loop's next round, after its timers. From the poll phase it would come before them, and the
  // phase a test starts in depends on the files run before it in the same process.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(pause(), undefined);
  let fired = false;
  setTimeout(() => {
    fired = true;
  }, 0);
  busy(210);
  const turn = pause();
  assert.ok(turn, 'a pause once the slice is over');
  await turn;
  // setImmediate comes after the timers already due: the loop had its turn.
  assert.ok(fired);
  assert.equal(pause(), undefined, 'a new slice begins after the turn');
});

test('a sliced queue runs jobs at once within the slice, then the rest in order on later turns', async () => {
  const ran: number[] = [];
  const queue = createSlicedQueue(200);
  queue.run(() => ran.push(1));
  assert.deepEqual(ran, [1], 'at once while the slice lasts');
  busy(210);
  queue.run(() => ran.push(2));
  queue.run(() => ran.push(3));
  assert.deepEqual(ran, [1], 'after the slice: on a later turn');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ran, [1, 2, 3]);
});
