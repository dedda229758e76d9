import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventWindow, sixWeeks, startDateFor, weekOf, weekRanges } from './six-weeks.ts';

test('the start date: the cohort clock uses the cohort start, the individual clock the student’s own', () => {
  assert.equal(startDateFor('cohort', '2026-09-07', '2026-10-01'), '2026-09-07');
  assert.equal(startDateFor('individual', '2026-09-07', '2026-10-01'), '2026-10-01');
  assert.equal(startDateFor('individual', '2026-09-07', null), null);
  assert.equal(startDateFor('cohort', null, '2026-10-01'), null);
});

test('day 0 to 6 is week 1, day 35 to 41 is week 6', () => {
  const at = (today: string) => sixWeeks('cohort', '2026-09-07', today);
  assert.deepEqual(at('2026-09-07'), {
    state: 'during',
    clock: 'cohort',
    start: '2026-09-07',
    end: '2026-10-18',
    week: 1,
    day: 1,
  });
  assert.equal((at('2026-09-13') as { week: number }).week, 1);
  assert.equal((at('2026-09-14') as { week: number }).week, 2);
  assert.equal((at('2026-09-21') as { week: number }).week, 3);
  assert.equal((at('2026-10-12') as { week: number }).week, 6);
  assert.equal((at('2026-10-18') as { week: number; day: number }).day, 42);
});

test('before and after the six weeks', () => {
  assert.deepEqual(sixWeeks('individual', '2026-09-07', '2026-09-01'), {
    state: 'before',
    clock: 'individual',
    start: '2026-09-07',
    end: '2026-10-18',
    daysUntil: 6,
  });
  assert.deepEqual(sixWeeks('cohort', '2026-09-07', '2026-10-19'), {
    state: 'after',
    clock: 'cohort',
    start: '2026-09-07',
    end: '2026-10-18',
    daysSince: 1,
  });
  assert.deepEqual(sixWeeks('cohort', null, '2026-10-19'), { state: 'no_start', clock: 'cohort' });
});

test('weeks across a month end, a leap day and a daylight-saving change count calendar days', () => {
  assert.equal((sixWeeks('cohort', '2028-02-20', '2028-03-05') as { week: number }).week, 3);
  // Europe and the US change clocks in late March / early November: weeks are calendar days.
  assert.equal((sixWeeks('cohort', '2026-03-23', '2026-03-30') as { week: number }).week, 2);
  assert.equal((sixWeeks('cohort', '2026-12-28', '2027-01-04') as { week: number }).week, 2);
});

test('the event window spans exactly 42 days from the start, end exclusive; six week ranges', () => {
  const { from, to } = eventWindow('2026-09-07', 'UTC');
  assert.equal(from.toISOString(), '2026-09-07T00:00:00.000Z');
  assert.equal(to.toISOString(), '2026-10-19T00:00:00.000Z');
  const weeks = weekRanges('2026-09-07');
  assert.equal(weeks.length, 6);
  assert.deepEqual(weeks[0], { week: 1, from: '2026-09-07', to: '2026-09-13' });
  assert.deepEqual(weeks[5], { week: 6, from: '2026-10-12', to: '2026-10-18' });
});

test("the window runs between midnights in the institution's zone, across a daylight-saving change", () => {
  // Sydney moves to daylight time on 4 October 2026: the window is an hour shorter than 42 days.
  const { from, to } = eventWindow('2026-09-07', 'Australia/Sydney');
  assert.equal(from.toISOString(), '2026-09-06T14:00:00.000Z');
  assert.equal(to.toISOString(), '2026-10-18T13:00:00.000Z');
});

test('an occurrence is in the week its start falls in, read in the zone', () => {
  const zone = 'Australia/Sydney';
  const start = '2026-09-07';
  // 08:00 on Monday 14 September in Sydney is still Sunday in UTC: week 2 there, not week 1.
  assert.equal(weekOf({ start: '2026-09-13T22:00:00Z', all_day: false }, start, zone), 1);
  assert.equal(weekOf({ start: '2026-09-13T22:00:00Z', all_day: false }, start, 'UTC'), 0);
  // After the clocks change: Monday 5 October 00:30 (daylight time) is week 5.
  assert.equal(weekOf({ start: '2026-10-04T13:30:00Z', all_day: false }, start, zone), 4);
  assert.equal(weekOf({ start: '2026-10-04T12:30:00Z', all_day: false }, start, zone), 3);
  // All-day events by their dates; before the window is week 1, after it week 6.
  assert.equal(weekOf({ start: '2026-09-21', all_day: true }, start, zone), 2);
  assert.equal(weekOf({ start: '2026-09-01', all_day: true }, start, zone), 0);
  assert.equal(weekOf({ start: '2026-10-17T12:00:00Z', all_day: false }, start, zone), 5);
});
