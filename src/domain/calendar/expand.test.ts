import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LONDON_VTIMEZONE } from '../../../test/calendar/london-vtimezone.ts';
import { type ExpandOptions, expandCalendar, type Occurrence } from './expand.ts';
import { decodeCalendar } from './ics-text.ts';
import { FeedProblem } from './problems.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-09-01T00:00:00Z');
const options: ExpandOptions = {
  now: NOW,
  windowStart: NOW - 180 * DAY,
  windowEnd: NOW + 400 * DAY,
  maxOccurrences: 100_000,
  maxSteps: 1_000_000,
  maxStepsPerSeries: 100_000,
};

const calendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
const expand = (text: string, o: Partial<ExpandOptions> = {}) => expandCalendar(text, { ...options, ...o });
const show = (o: Occurrence) =>
  `${o.recurrence_id || '-'} ${o.all_day ? new Date(o.start).toISOString().slice(0, 10) : new Date(o.start).toISOString()}..${o.all_day ? new Date(o.end).toISOString().slice(0, 10) : new Date(o.end).toISOString()} ${o.status} ${o.summary}`;

test('a weekly series keeps its local time across a daylight-saving change; EXDATE, moves and cancellations apply', () => {
  const r = expand(
    calendar(
      'BEGIN:VEVENT',
      'UID:lecture@example.edu',
      'DTSTART;TZID=Europe/Berlin:20261012T090000',
      'DTEND;TZID=Europe/Berlin:20261012T103000',
      'RRULE:FREQ=WEEKLY;COUNT=5',
      'EXDATE;TZID=Europe/Berlin:20261019T090000',
      'SUMMARY:Lecture',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:lecture@example.edu',
      'RECURRENCE-ID;TZID=Europe/Berlin:20261026T090000',
      'DTSTART;TZID=Europe/Berlin:20261027T140000',
      'DTEND;TZID=Europe/Berlin:20261027T153000',
      'SUMMARY:Lecture (moved)',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:lecture@example.edu',
      'RECURRENCE-ID:20261102T080000Z',
      'DTSTART;TZID=Europe/Berlin:20261102T090000',
      'DTEND;TZID=Europe/Berlin:20261102T103000',
      'STATUS:CANCELLED',
      'SUMMARY:Lecture',
      'END:VEVENT',
    ),
  );
  assert.deepEqual(r.occurrences.map(show), [
    '2026-10-12T07:00:00Z 2026-10-12T07:00:00.000Z..2026-10-12T08:30:00.000Z confirmed Lecture',
    '2026-10-26T08:00:00Z 2026-10-27T13:00:00.000Z..2026-10-27T14:30:00.000Z confirmed Lecture (moved)',
    '2026-11-02T08:00:00Z 2026-11-02T08:00:00.000Z..2026-11-02T09:30:00.000Z cancelled Lecture',
    '2026-11-09T08:00:00Z 2026-11-09T08:00:00.000Z..2026-11-09T09:30:00.000Z confirmed Lecture',
  ]);
});

test('UNTIL in UTC is read in the series zone (the last occurrence east of Greenwich is kept)', () => {
  const r = expand(
    calendar(
      'BEGIN:VEVENT',
      'UID:u',
      'DTSTART;TZID=Australia/Sydney:20260907T090000',
      'DURATION:PT1H',
      'RRULE:FREQ=WEEKLY;UNTIL=20260920T230000Z',
      'END:VEVENT',
    ),
  );
  assert.deepEqual(
    r.occurrences.map((o) => o.recurrence_id),
    ['2026-09-06T23:00:00Z', '2026-09-13T23:00:00Z', '2026-09-20T23:00:00Z'],
  );
});

test('all-day, multi-day, DURATION and a one-day default', () => {
  const r = expand(
    calendar(
      'BEGIN:VEVENT',
      'UID:a',
      'DTSTART;VALUE=DATE:20260907',
      'SUMMARY:Orientation day',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:b',
      'DTSTART;VALUE=DATE:20261019',
      'DTEND;VALUE=DATE:20261024',
      'SUMMARY:Reading week',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:c',
      'DTSTART:20260910T120000Z',
      'DURATION:P1DT2H',
      'SUMMARY:Field trip',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:d',
      'DTSTART;VALUE=DATE:20260914',
      'DURATION:P2D',
      'SUMMARY:Exams',
      'END:VEVENT',
    ),
  );
  assert.deepEqual(r.occurrences.map(show), [
    '- 2026-09-07..2026-09-08 confirmed Orientation day',
    '- 2026-10-19..2026-10-24 confirmed Reading week',
    '- 2026-09-10T12:00:00.000Z..2026-09-11T14:00:00.000Z confirmed Field trip',
    '- 2026-09-14..2026-09-16 confirmed Exams',
  ]);
});

test('RDATE dates and periods join the series; duplicates of the rule are kept once', () => {
  const r = expand(
    calendar(
      'BEGIN:VEVENT',
      'UID:r',
      'DTSTART:20260907T100000Z',
      'DTEND:20260907T110000Z',
      'RRULE:FREQ=DAILY;COUNT=2',
      'RDATE:20260908T100000Z,20260915T100000Z',
      'RDATE;VALUE=PERIOD:20260920T150000Z/20260920T170000Z',
      'END:VEVENT',
    ),
  );
  assert.deepEqual(r.occurrences.map(show), [
    '2026-09-07T10:00:00Z 2026-09-07T10:00:00.000Z..2026-09-07T11:00:00.000Z confirmed null',
    '2026-09-08T10:00:00Z 2026-09-08T10:00:00.000Z..2026-09-08T11:00:00.000Z confirmed null',
    '2026-09-15T10:00:00Z 2026-09-15T10:00:00.000Z..2026-09-15T11:00:00.000Z confirmed null',
    '2026-09-20T15:00:00Z 2026-09-20T15:00:00.000Z..2026-09-20T17:00:00.000Z confirmed null',
  ]);
});

test('a rule with no end is expanded only within the window', () => {
  const r = expand(
    calendar(
      'BEGIN:VEVENT',
      'UID:w',
      'DTSTART:20200106T090000Z',
      'RRULE:FREQ=WEEKLY',
      'SUMMARY:Drop-in',
      'END:VEVENT',
    ),
  );
  const starts = r.occurrences.map((o) => o.start);
  assert.ok(Math.min(...starts) >= options.windowStart);
  assert.ok(Math.max(...starts) < options.windowEnd);
  assert.equal(r.occurrences.length, 83);
});

test('escaped text, floating times in X-WR-TIMEZONE, missing UID, unreadable events skipped', () => {
  const text = decodeCalendar(
    Buffer.from(
      calendar(
        'X-WR-TIMEZONE:America/Toronto',
        'BEGIN:VEVENT',
        'UID:t',
        'DTSTART:20260910T090000',
        'SUMMARY:Essays\\, drafts\\; and notes \\\\ more',
        'DESCRIPTION:Line one\\nLine two\\NLine three',
        'LOCATION:Room 101\\, Main Hall',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART:20260911T090000Z',
        'SUMMARY:No uid',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:no-start',
        'SUMMARY:No DTSTART',
        'END:VEVENT',
      ),
    ),
  );
  const r = expand(text);
  const essay = r.occurrences.find((o) => o.uid === 't')!;
  assert.equal(essay.summary, 'Essays, drafts; and notes \\ more');
  assert.equal(essay.description, 'Line one\nLine two\nLine three');
  assert.equal(essay.location, 'Room 101, Main Hall');
  assert.equal(new Date(essay.start).toISOString(), '2026-09-10T13:00:00.000Z');
  const noUid = r.occurrences.find((o) => o.summary === 'No uid')!;
  assert.match(noUid.uid, /^no-uid-[0-9a-f]{32}$/);
  assert.equal(expand(text).occurrences.find((o) => o.summary === 'No uid')!.uid, noUid.uid, 'stable');
  assert.equal(r.skipped, 1);
  // ical.js checks recurrence rules while parsing: a malformed one fails the fetch, with its reason.
  assert.throws(
    () =>
      expand(
        calendar('BEGIN:VEVENT', 'UID:b', 'DTSTART:20260911T090000Z', 'RRULE:FREQ=FORTNIGHTLY', 'END:VEVENT'),
      ),
    /not a valid iCalendar file: invalid frequency "FORTNIGHTLY"/,
  );
});

test('the highest SEQUENCE of a duplicated event wins', () => {
  const ev = (seq: number, summary: string) => [
    'BEGIN:VEVENT',
    'UID:dup',
    `SEQUENCE:${seq}`,
    'DTSTART:20260910T090000Z',
    `SUMMARY:${summary}`,
    'END:VEVENT',
  ];
  const r = expand(calendar(...ev(3, 'new'), ...ev(1, 'old')));
  assert.deepEqual(
    r.occurrences.map((o) => o.summary),
    ['new'],
  );
});

test('a calendar over the cap is stored truncated: what is still to come first, earliest first, then the latest past ones', () => {
  // 50 daily events from 40 days before the fetch time, shuffled: the cap keeps the same ones
  // whatever the order of the VEVENTs.
  const days = Array.from({ length: 50 }, (_, i) => i).sort((a, b) => ((a * 7919) % 50) - ((b * 7919) % 50));
  const many = calendar(
    ...days.flatMap((i) => [
      'BEGIN:VEVENT',
      `UID:e${i}`,
      `DTSTART:${new Date(NOW + (i - 40) * DAY).toISOString().replace(/[-:]|\.\d{3}/g, '')}`,
      'DURATION:PT1H',
      'END:VEVENT',
    ]),
  );
  const r = expand(many, { maxOccurrences: 12 });
  assert.equal(r.truncated, 38);
  assert.deepEqual(
    r.occurrences.map((o) => o.uid),
    [...Array.from({ length: 10 }, (_, i) => `e${40 + i}`), 'e39', 'e38'],
  );
  // The cut happens while expanding (memory stays bounded) and gives the same answer.
  const r3 = expand(many, { maxOccurrences: 3 });
  assert.deepEqual([r3.truncated, r3.occurrences.map((o) => o.uid)], [47, ['e40', 'e41', 'e42']]);
  assert.equal(expand(many).truncated, 0);
});

test('hostile calendars fail with a reason instead of running away', () => {
  const bomb = calendar(
    'BEGIN:VEVENT',
    'UID:s',
    'DTSTART:20000101T000000Z',
    'RRULE:FREQ=SECONDLY',
    'END:VEVENT',
  );
  assert.throws(
    () => expand(bomb, { maxSteps: 50_000, maxStepsPerSeries: 1_000_000 }),
    /more than 50000 steps/,
  );
  // One runaway series alone stops at its own cap without failing the feed.
  assert.equal(expand(bomb, { maxStepsPerSeries: 1000 }).occurrences.length, 0);
  assert.throws(
    () => expand('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nnonsense\r\nEND:VCALENDAR\r\n'),
    FeedProblem,
  );
});

test('cost stays linear: 20,000 events in a zone defined by a VTIMEZONE, and 20,000 in a zone that matches nothing', () => {
  for (const tzid of ['Europe/London', 'Unheard Of Standard Time']) {
    const events = Array.from({ length: 20_000 }, (_, i) => [
      'BEGIN:VEVENT',
      `UID:ev-${i}@example.edu`,
      `DTSTART;TZID=${tzid}:202609${String(1 + (i % 28)).padStart(2, '0')}T${String(8 + (i % 10)).padStart(2, '0')}0000`,
      `DTEND;TZID=${tzid}:202609${String(1 + (i % 28)).padStart(2, '0')}T${String(9 + (i % 10)).padStart(2, '0')}0000`,
      `SUMMARY:Event ${i}`,
      'END:VEVENT',
    ]).flat();
    const started = performance.now();
    const r = expand(calendar(...LONDON_VTIMEZONE, ...events));
    const ms = performance.now() - started;
    assert.equal(r.occurrences.length, 20_000);
    assert.ok(ms < 20_000, `${tzid}: ${Math.round(ms)} ms`);
    process.stdout.write(`# 20,000 events, TZID ${tzid}: ${Math.round(ms)} ms\n`);
  }
});

test('a rule that can never match keeps only its start and is reported; one that matches too rarely stops at its budget', () => {
  const event = (uid: string, rule: string, start = '20260901T090000Z') => [
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTART:${start}`,
    'DURATION:PT1H',
    `RRULE:${rule}`,
    `SUMMARY:${uid} title`,
    'END:VEVENT',
  ];
  const started = performance.now();
  const r = expand(
    calendar(
      ...event('never', 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'),
      ...event('short-months', 'FREQ=YEARLY;BYMONTH=4,6,9,11;BYMONTHDAY=31'),
      // Leap days only, minute by minute: about 500,000 candidates a year.
      ...event('rare', 'FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29'),
      ...event('fine', 'FREQ=WEEKLY;COUNT=3'),
    ),
    { maxCandidatesPerRule: 50_000 },
  );
  assert.ok(performance.now() - started < 10_000);
  const starts = (uid: string) => r.occurrences.filter((o) => o.uid === uid).length;
  assert.deepEqual([starts('never'), starts('short-months'), starts('rare'), starts('fine')], [1, 1, 1, 3]);
  assert.deepEqual(
    r.problems.map((p) => [p.uid, p.summary]),
    [
      ['never', 'never title'],
      ['short-months', 'short-months title'],
      ['rare', 'rare title'],
    ],
  );
  assert.match(r.problems[0].problem, /can never match.*only its start.*BYMONTHDAY=30/);
  assert.match(r.problems[2].problem, /too rarely.*50000 candidate dates/);
  // The feed's own budget fails the fetch.
  assert.throws(
    () =>
      expand(calendar(...event('a', 'FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29')), {
        maxCandidates: 10_000,
      }),
    /more than 10000 candidate dates/,
  );
});
