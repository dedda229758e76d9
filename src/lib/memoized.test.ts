import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoized } from './memoized.ts';

test('an answer is computed once per argument, and the kept answers start again past the bound', () => {
  const asked: string[] = [];
  const upper = memoized((key) => {
    asked.push(key);
    return key.toUpperCase();
  }, 2);
  assert.equal(upper('a'), 'A');
  assert.equal(upper('a'), 'A');
  assert.equal(upper('b'), 'B');
  assert.deepEqual(asked, ['a', 'b']);
  assert.equal(upper('c'), 'C'); // the third: the set starts again with it
  assert.equal(upper('a'), 'A');
  assert.deepEqual(asked, ['a', 'b', 'c', 'a']);
  assert.equal(upper('c'), 'C');
  assert.deepEqual(asked, ['a', 'b', 'c', 'a']);
});
