import assert from 'node:assert/strict';
import { test } from 'node:test';
import ICAL from 'ical.js';
import { createZoneResolver, ianaZone, type Wall } from './zones.ts';

const wall = (s: string): Wall => {
  const [d, t] = s.split('T');
  const [year, month, day] = d.split('-').map(Number);
  const [hour, minute, second] = t.split(':').map(Number);
  return { year, month, day, hour, minute, second };
};
const iso = (ms: number) => new Date(ms).toISOString();

test('IANA zones: ordinary, repeated and missing wall times', () => {
  const ny = ianaZone('America/New_York')!;
  assert.equal(iso(ny.toUtc(wall('2026-07-01T09:00:00'))), '2026-07-01T13:00:00.000Z');
  assert.equal(iso(ny.toUtc(wall('2026-01-15T09:00:00'))), '2026-01-15T14:00:00.000Z');
  // 01:30 happens twice on 2026-11-01: the first (EDT) is meant.
  assert.equal(iso(ny.toUtc(wall('2026-11-01T01:30:00'))), '2026-11-01T05:30:00.000Z');
  // 02:30 does not exist on 2026-03-08: read with the offset before the change (= 03:30 EDT).
  assert.equal(iso(ny.toUtc(wall('2026-03-08T02:30:00'))), '2026-03-08T07:30:00.000Z');
  assert.equal(ianaZone('Not/AZone'), null);
});

test('Windows zone names as Outlook writes them map to IANA zones', () => {
  const zones = createZoneResolver([]);
  const cases: [string, string, string][] = [
    ['W. Europe Standard Time', '2026-07-01T09:00:00', '2026-07-01T07:00:00.000Z'],
    ['GMT Standard Time', '2026-07-01T09:00:00', '2026-07-01T08:00:00.000Z'],
    ['Eastern Standard Time', '2026-12-01T09:00:00', '2026-12-01T14:00:00.000Z'],
    ['AUS Eastern Standard Time', '2026-07-01T09:00:00', '2026-06-30T23:00:00.000Z'],
    ['India Standard Time', '2026-07-01T09:00:00', '2026-07-01T03:30:00.000Z'],
  ];
  for (const [name, local, utc] of cases)
    assert.equal(iso(zones.resolve(name).toUtc(wall(local))), utc, name);
  assert.equal(zones.unknown.size, 0);
});

test('a VTIMEZONE block of the feed wins, is built once, and unknown names fall back to X-WR-TIMEZONE', () => {
  const block = ICAL.Component.fromString(
    [
      'BEGIN:VTIMEZONE',
      'TZID:Customized Time Zone',
      'BEGIN:STANDARD',
      'DTSTART:16010101T030000',
      'TZOFFSETFROM:+0300',
      'TZOFFSETTO:+0200',
      'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
      'END:STANDARD',
      'BEGIN:DAYLIGHT',
      'DTSTART:16010101T020000',
      'TZOFFSETFROM:+0200',
      'TZOFFSETTO:+0300',
      'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3',
      'END:DAYLIGHT',
      'END:VTIMEZONE',
    ].join('\r\n'),
  );
  const zones = createZoneResolver([block], 'Europe/Helsinki');
  const custom = zones.resolve('Customized Time Zone');
  assert.equal(custom, zones.resolve('Customized Time Zone'), 'resolved once, then reused');
  assert.equal(iso(custom.toUtc(wall('2026-07-01T09:00:00'))), '2026-07-01T06:00:00.000Z');
  assert.equal(iso(custom.toUtc(wall('2026-12-01T09:00:00'))), '2026-12-01T07:00:00.000Z');
  assert.equal(
    iso(zones.resolve('/mozilla.org/20050126_1/Europe/Berlin').toUtc(wall('2026-12-01T09:00:00'))),
    '2026-12-01T08:00:00.000Z',
  );
  assert.equal(
    iso(zones.resolve('Nowhere Standard Time').toUtc(wall('2026-12-01T09:00:00'))),
    '2026-12-01T07:00:00.000Z',
  );
  assert.deepEqual([...zones.unknown], ['Nowhere Standard Time']);
  assert.equal(iso(zones.resolve(undefined).toUtc(wall('2026-12-01T09:00:00'))), '2026-12-01T07:00:00.000Z');
});
