// Recurrence rules that can never produce an occurrence, found before they are expanded.
//
// A rule such as FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30 makes ical.js step through days forever
// looking for a 30 February (and grow its date caches until the heap is gone). Which days a rule
// may fall on is decided by its day-level parts (BYMONTH, BYMONTHDAY, BYYEARDAY, BYWEEKNO,
// BYDAY), and the Gregorian calendar has only 14 kinds of year (leap or not, times the weekday of
// 1 January). So a rule can match some day if and only if some day of one of those 14 years
// passes every day-level part: we try them all (14 x 380 days, well under a millisecond).
//
// The check only ever says "never" when no day can match; a rule that is merely rare (29
// February, the fifth Monday) passes, and what it cannot see (BYSETPOS, an INTERVAL that skips
// every matching year) is left to the iteration budget of the expansion (rule-budget.ts).
// Pure; unit tests in rule-check.test.ts.

export interface RuleParts {
  freq: string;
  /** ical.js's parts: BYMONTH, BYMONTHDAY, BYYEARDAY, BYWEEKNO as numbers, BYDAY as text ("1MO", "FR"). */
  parts: Record<string, unknown>;
  /** First day of the week, ical.js numbering (1 = Sunday, 2 = Monday: the default). */
  wkst?: number;
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface DayRule {
  weekday: number;
  /** 0 for "every such weekday", else the nth (negative: from the end). */
  nth: number;
}

function numbers(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value.map(Number) : undefined;
}

function dayRules(value: unknown): DayRule[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const out: DayRule[] = [];
  for (const raw of value) {
    const match = /^([+-]?\d{1,2})?(SU|MO|TU|WE|TH|FR|SA)$/.exec(String(raw).toUpperCase());
    if (!match) return undefined; // not ours to judge: ical.js reads or refuses it
    out.push({ weekday: WEEKDAYS.indexOf(match[2]), nth: Number(match[1] ?? 0) });
  }
  return out;
}

/** One day of a year of a given kind, with what the rule parts look at. */
interface Day {
  month: number;
  monthDay: number;
  monthLength: number;
  /** Day of the calendar year, or undefined for a day of the neighbouring year (week numbering). */
  yearDay?: number;
  yearLength: number;
  weekday: number;
  /** Week number in this week-numbering year and how many weeks it has; undefined outside it. */
  week?: number;
  weeks: number;
}

/** Where week 1 starts (a day of the year, possibly <= 0), weeks starting on `wkst` (0 = Sunday). */
function firstWeekStart(jan1: number, wkst: number): number {
  const before = (jan1 - wkst + 7) % 7;
  return 7 - before >= 4 ? 1 - before : 8 - before;
}

/** The days of a year of one kind, with a week either side for week numbering. */
function* daysOfYear(leap: boolean, jan1: number, wkst: number): Generator<Day> {
  const yearLength = leap ? 366 : 365;
  const lengths = MONTH_DAYS.map((n, i) => (i === 1 && leap ? 29 : n));
  const week1 = firstWeekStart(jan1, wkst);
  const nextWeek1 = yearLength + firstWeekStart((jan1 + yearLength) % 7, wkst);
  const weeks = (nextWeek1 - week1) / 7;
  let month = 0;
  let monthStart = 1;
  for (let d = -6; d <= yearLength + 7; d++) {
    const inYear = d >= 1 && d <= yearLength;
    while (inYear && d >= monthStart + lengths[month]) monthStart += lengths[month++];
    const week = d >= week1 && d < nextWeek1 ? Math.floor((d - week1) / 7) + 1 : undefined;
    yield {
      // December before, January after: 31 days either way.
      month: inYear ? month + 1 : d < 1 ? 12 : 1,
      monthDay: inYear ? d - monthStart + 1 : d < 1 ? 31 + d : d - yearLength,
      monthLength: inYear ? lengths[month] : 31,
      yearDay: inYear ? d : undefined,
      yearLength,
      weekday: (((jan1 + d - 1) % 7) + 7) % 7,
      week,
      weeks,
    };
  }
}

function matchesIndex(values: number[], index: number, count: number): boolean {
  return values.includes(index) || values.includes(index - count - 1);
}

/** Does BYDAY allow this day? An nth weekday counts within the month or the year. */
function matchesDay(rules: DayRule[], day: Day, withinMonth: boolean): boolean {
  return rules.some((r) => {
    if (r.weekday !== day.weekday) return false;
    if (r.nth === 0) return true;
    const position = withinMonth ? day.monthDay : day.yearDay;
    const length = withinMonth ? day.monthLength : day.yearLength;
    if (position === undefined) return true; // a neighbouring year's day: not judged
    const forward = Math.floor((position - 1) / 7) + 1;
    const backward = -(Math.floor((length - position) / 7) + 1);
    return r.nth === forward || r.nth === backward;
  });
}

/**
 * Why the rule can never match any day, or null when some day can. Only the day-level parts
 * are judged; a rule without them always passes.
 */
export function neverMatches(rule: RuleParts): string | null {
  const months = numbers(rule.parts.BYMONTH);
  const monthDays = numbers(rule.parts.BYMONTHDAY);
  const yearDays = numbers(rule.parts.BYYEARDAY);
  const weekNos = rule.freq === 'YEARLY' ? numbers(rule.parts.BYWEEKNO) : undefined;
  const days = dayRules(rule.parts.BYDAY);
  if (!months && !monthDays && !yearDays && !weekNos && !days) return null;
  // RFC 5545: an nth weekday counts within the month for MONTHLY, and for YEARLY with BYMONTH.
  const withinMonth = rule.freq === 'MONTHLY' || (rule.freq === 'YEARLY' && months !== undefined);
  const wkst = ((rule.wkst ?? 2) - 1 + 7) % 7;
  for (const leap of [false, true])
    for (let jan1 = 0; jan1 < 7; jan1++)
      for (const day of daysOfYear(leap, jan1, wkst)) {
        // Days of the neighbouring years count only for week numbers (week 1 may start in December).
        if (day.yearDay === undefined && (!weekNos || day.week === undefined)) continue;
        if (weekNos && (day.week === undefined || !matchesIndex(weekNos, day.week, day.weeks))) continue;
        if (months && !months.includes(day.month)) continue;
        if (monthDays && !matchesIndex(monthDays, day.monthDay, day.monthLength)) continue;
        if (yearDays && day.yearDay !== undefined && !matchesIndex(yearDays, day.yearDay, day.yearLength))
          continue;
        if (days && !matchesDay(days, day, withinMonth)) continue;
        return null;
      }
  return 'its recurrence rule can never match a date (no day satisfies all of its BYMONTH, BYMONTHDAY, BYYEARDAY, BYWEEKNO and BYDAY parts)';
}
