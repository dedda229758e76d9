// Where a student is in their six weeks: the pure rule behind the student home page.
//
// The six weeks start on a date: the cohort's start_date for a `cohort`-clock cohort, the
// student's own start_date for an `individual` one. Day 0 to 6 is week 1, ..., day 35 to 41 is
// week 6; before day 0 the page says when they start, from day 42 on it says they are over.
// Dates are calendar days (YYYY-MM-DD); "today" is the UTC date of the clock, and the window of
// calendar events is [start 00:00 UTC, start + 42 days 00:00 UTC) (institutions carry no time
// zone yet; see docs/student-app.md).

export const WEEKS = 6;
const DAY_MS = 86_400_000;

export type Clock = 'cohort' | 'individual';

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

/** The UTC calendar date of an instant. */
export function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

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

/** The window of calendar events of the six weeks: [start, start + 42 days) in UTC. */
export function eventWindow(start: string): { from: Date; to: Date } {
  const from = dayNumber(start) * DAY_MS;
  return { from: new Date(from), to: new Date(from + WEEKS * 7 * DAY_MS) };
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
