// Numbers in the report and the progress line, written as toLocaleString('en') writes them,
// without loading ICU (report.ts, thousands()).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { thousands } from './report.ts';

test('thousands are separated by commas, as in English', () => {
  for (const n of [0, 7, 999, 1000, 12_345, 100_000, 1_234_567, 60_000_000]) {
    assert.equal(thousands(n), n.toLocaleString('en'));
  }
});
