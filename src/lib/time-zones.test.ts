import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { canonicalTimeZone, dateIn, formatInZone, offsetAt, startOfDate } from './time-zones.ts';

test('zones are known by their IANA names, in any case; anything else is unknown', () => {
  assert.equal(canonicalTimeZone('UTC'), 'UTC');
  assert.equal(canonicalTimeZone('australia/sydney'), 'Australia/Sydney');
  assert.equal(canonicalTimeZone('America/New_York'), 'America/New_York');
  for (const bad of ['', 'Mars/Olympus', 'Australia/', 'x'.repeat(65), '../etc/passwd']) {
    assert.equal(canonicalTimeZone(bad), undefined, bad);
  }
});

test('the date of an instant is read in the zone', () => {
  const instant = new Date('2026-03-01T20:30:00Z');
  assert.equal(dateIn(instant, 'UTC'), '2026-03-01');
  assert.equal(dateIn(instant, 'Australia/Sydney'), '2026-03-02'); // 07:30 AEDT
  assert.equal(dateIn(new Date('2026-03-02T03:00:00Z'), 'America/Los_Angeles'), '2026-03-01');
});

test('a date starts at its midnight in the zone, across daylight-saving changes', () => {
  assert.equal(startOfDate('2026-09-07', 'UTC').toISOString(), '2026-09-07T00:00:00.000Z');
  assert.equal(startOfDate('2026-09-07', 'Australia/Sydney').toISOString(), '2026-09-06T14:00:00.000Z');
  assert.equal(startOfDate('2026-03-02', 'Australia/Sydney').toISOString(), '2026-03-01T13:00:00.000Z');
  // New York springs forward at 02:00 on 8 March 2026; the days around it start at midnight.
  assert.equal(startOfDate('2026-03-08', 'America/New_York').toISOString(), '2026-03-08T05:00:00.000Z');
  assert.equal(startOfDate('2026-03-09', 'America/New_York').toISOString(), '2026-03-09T04:00:00.000Z');
  assert.equal(startOfDate('2026-01-01', 'Pacific/Kiritimati').toISOString(), '2025-12-31T10:00:00.000Z');
  // Santiago moves its clocks at midnight (00:00 is 01:00 on 6 September 2026): the day starts at 01:00.
  const santiago = startOfDate('2026-09-06', 'America/Santiago');
  assert.equal(dateIn(santiago, 'America/Santiago'), '2026-09-06');
  assert.equal(dateIn(new Date(santiago.getTime() - 1000), 'America/Santiago'), '2026-09-05');
});

test('property: a day starts on its own date, and a second earlier is the day before', () => {
  const zones = [
    'UTC',
    'Australia/Sydney',
    'America/New_York',
    'Europe/London',
    'Asia/Kolkata',
    'America/Santiago',
    'Pacific/Chatham',
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...zones),
      fc.integer({ min: Date.UTC(2000, 0, 1) / 86_400_000, max: Date.UTC(2060, 0, 1) / 86_400_000 }),
      (zone, day) => {
        const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
        const start = startOfDate(date, zone);
        assert.equal(dateIn(start, zone), date);
        assert.notEqual(dateIn(new Date(start.getTime() - 1000), zone), date);
        assert.equal(Math.abs(offsetAt(start.getTime(), zone)) <= 14 * 3_600_000, true);
      },
    ),
    { numRuns: 500 },
  );
});

test('formatInZone names the zone, on its wall clock', () => {
  assert.equal(formatInZone(new Date('2026-01-01T00:00:00Z'), 'UTC'), '2026-01-01 00:00 UTC');
  assert.equal(
    formatInZone(new Date('2026-07-01T23:30:00Z'), 'Europe/London'),
    '2026-07-02 00:30 Europe/London',
  );
});
