// The in-process wake-up call: every listener called on notify(), none after it stops listening.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSignal } from './signal.ts';

test('a signal calls its listeners until they stop listening; nothing is kept for later ones', () => {
  const signal = createSignal();
  signal.notify();
  const heard: string[] = [];
  const stopA = signal.listen(() => heard.push('a'));
  signal.listen(() => heard.push('b'));
  signal.notify();
  stopA();
  signal.notify();
  assert.deepEqual(heard, ['a', 'b', 'b']);
});

test('the same listener twice is two listeners, each stopped on its own', () => {
  const signal = createSignal();
  let calls = 0;
  const listener = () => calls++;
  const stop = signal.listen(listener);
  signal.listen(listener);
  signal.notify();
  stop();
  signal.notify();
  assert.equal(calls, 3);
});
