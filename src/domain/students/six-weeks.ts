// Where a student is in their six weeks: the pure rule behind the student home page.
//
// The six weeks start on a date: the cohort's start_date for a `cohort`-clock cohort, the
// student's own start_date for an `individual` one. Day 0 to 6 is week 1, ..., day 35 to 41 is
// week 6; before day 0 the page says when they start, from day 42 on it says they are over.
// Dates are calendar days (YYYY-MM-DD) in the institution's time zone: "today" is the date of
// the clock there, and the window of calendar events runs from the start date's midnight there
// to the midnight 42 days later (docs/student-app.md).

import { startOfDate } from '../../lib/time-zones.ts';
import type { Clock } from './model.ts';

export type { Clock };

export const WEEKS = 6;
const DAY_MS = 86_400_000;

export type SixWeeks =
  /** No start date to count from (the cohort's or the student's is not set). */
  | { state: 'no_start'; clock: Clock }
  | { state: 'before'; clock: Clock; start: string; end: string; daysUntil: number }
  | { state: 'during'; clock: Clock; start: string; end: string; week: number; day: number }
  | { state: 'after'; clock: Clock; start: string; end: string; daysSince: number };

/** The start date that counts for a student: the cohort's or their own, by the cohort's clock. */
export function startDateFor(
  clock: Clock,
  cohortStart: string | null,
  ownStart: string | null,
): string | null {
  return clock === 'cohort' ? cohortStart : ownStart;
}

const dayNumber = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Where `today` falls in the six weeks starting on `start` (both YYYY-MM-DD). `end` is the last
 * day of week 6 (inclusive).
 */
export function sixWeeks(clock: Clock, start: string | null, today: string): SixWeeks {
  if (start === null || !Number.isFinite(Date.parse(`${start}T00:00:00Z`)))
    return { state: 'no_start', clock };
  const first = dayNumber(start);
  const day = dayNumber(today) - first;
  const end = dateOf(first + WEEKS * 7 - 1);
  if (day < 0) return { state: 'before', clock, start, end, daysUntil: -day };
  if (day >= WEEKS * 7) return { state: 'after', clock, start, end, daysSince: day - (WEEKS * 7 - 1) };
  return { state: 'during', clock, start, end, week: Math.floor(day / 7) + 1, day: day + 1 };
}

/** The window of calendar events of the six weeks: [start, start + 42 days), midnights in the zone. */
export function eventWindow(start: string, zone: string): { from: Date; to: Date } {
  return { from: startOfDate(start, zone), to: startOfDate(dateOf(dayNumber(start) + WEEKS * 7), zone) };
}

/** The six weeks as date ranges (Monday-to-Sunday is not assumed: week 1 starts on `start`). */
export function weekRanges(start: string): { week: number; from: string; to: string }[] {
  const first = dayNumber(start);
  return Array.from({ length: WEEKS }, (_, i) => ({
    week: i + 1,
    from: dateOf(first + i * 7),
    to: dateOf(first + i * 7 + 6),
  }));
}

/**
 * The week (0 to 5) an occurrence starts in: an all-day one by its date, a timed one by its
 * instant against the weeks' first midnights in the zone (a week with a daylight-saving change
 * is an hour longer or shorter). One that began before the window is in week 1.
 */
export function weekOf(event: { start: string; all_day: boolean }, start: string, zone: string): number {
  const first = dayNumber(start);
  let index: number;
  if (event.all_day) {
    index = Math.floor((dayNumber(event.start) - first) / 7);
  } else {
    const at = Date.parse(event.start);
    index = 0;
    while (index < WEEKS - 1 && at >= startOfDate(dateOf(first + (index + 1) * 7), zone).getTime()) index++;
  }
  return Math.min(WEEKS - 1, Math.max(0, index));
}
