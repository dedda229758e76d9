import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dayRange, timeIn } from './institution-time.ts';

test('an instant in the institution zone, the zone named', () => {
  assert.equal(timeIn('2026-11-25T18:15:30Z', 'America/New_York'), '2026-11-25 13:15 America/New_York');
  assert.equal(
    timeIn(new Date('2026-07-01T00:05:00Z'), 'Australia/Sydney'),
    '2026-07-01 10:05 Australia/Sydney',
  );
  assert.equal(timeIn('2026-11-25T23:59:00Z', 'UTC'), '2026-11-25 23:59 UTC');
  assert.equal(timeIn(null, 'UTC'), '—');
});

test("a range of the institution's dates: from the first midnight there to the midnight after the last", () => {
  const range = dayRange('Europe/Berlin', '2026-03-28', '2026-03-29');
  assert.equal(range.from?.toISOString(), '2026-03-27T23:00:00.000Z');
  // The clocks go forward on the 29th: the next midnight is at 22:00 UTC.
  assert.equal(range.to?.toISOString(), '2026-03-29T22:00:00.000Z');
  assert.deepEqual(dayRange('UTC'), { from: undefined, to: undefined });
});
