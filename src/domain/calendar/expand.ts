// From an iCalendar text to the occurrences a feed stores: one per single event, one per
// occurrence of a recurring event inside the expansion window.
//
// - Recurrence: RRULE (every one given), RDATE (dates, date-times and periods), EXDATE, and
//   RECURRENCE-ID overrides that move, change or cancel one occurrence (RANGE=THISANDFUTURE is
//   read as that one occurrence only). An override replaces the generated occurrence with the
//   same original start; one whose original start is not generated (moved in from outside the
//   window, or its series is missing) is stored on its own.
// - Expansion is done on wall-clock time in the event's zone (so 09:00 stays 09:00 across
//   daylight-saving changes), each occurrence then converted to UTC (zones.ts). An UNTIL given
//   in UTC is first converted to that zone, as RFC 5545 3.3.10 intends.
// - Window: occurrences of recurring events are kept when they overlap
//   [windowStart, windowEnd) (the fetch sets 180 days back to 400 days ahead); a rule with no
//   end is never expanded past windowEnd. Single events are kept whatever their date.
// - STATUS:CANCELLED on a series cancels every occurrence; on an override, that occurrence.
//   Cancelled occurrences are stored with status "cancelled" (a listing shows them struck
//   through rather than silently dropping them); EXDATE removes an occurrence entirely.
// - Limits: at most `maxOccurrences` kept (the rest are left out and counted, by the order in
//   cap.ts: what is still to come first); at most `maxSteps` recurrence steps in all (a hostile
//   calendar fails the fetch instead of running away); one series stops after
//   `maxStepsPerSeries` steps. Inside one step, the candidate dates ical.js looks at are
//   budgeted too (rule-budget.ts), and a rule no date can satisfy is refused before it is
//   expanded (rule-check.ts): the event keeps its DTSTART and the problem is reported.
// - Problems: an event left out or cut short is reported with its UID and summary (the first
//   MAX_PROBLEMS of them), so the feed's page can say which events to fix.
// Cost: linear in the size of the calendar plus the occurrences generated; time zones are
// built once per feed (zones.ts).

import ICAL from 'ical.js';
import { cappedList } from './cap.ts';
import { type EventProblem, FeedProblem } from './problems.ts';
import { budgetedIterator, type CandidateBudget, lastDayOf, RuleOverBudget } from './rule-budget.ts';
import { neverMatches } from './rule-check.ts';
import {
  DAY_MS,
  endOf,
  isUtc,
  type Length,
  type Moment,
  momentOf,
  type Occurrence,
  readVevent,
  recurrenceKey,
  singleOccurrence,
  tzidOf,
  type Vevent,
} from './vevent.ts';
import { createZoneResolver, type ZoneResolver } from './zones.ts';

export type { Occurrence, OccurrenceStatus } from './vevent.ts';

export interface ExpandOptions {
  /** The fetch time (UTC ms): what is kept first when the feed is over `maxOccurrences`. */
  now: number;
  windowStart: number;
  windowEnd: number;
  maxOccurrences: number;
  maxSteps: number;
  maxStepsPerSeries: number;
  /** Candidate dates one rule may make ical.js look at (default MAX_CANDIDATES_PER_RULE). */
  maxCandidatesPerRule?: number;
  /** Candidate dates the whole feed may make it look at (default MAX_CANDIDATES). */
  maxCandidates?: number;
}

/** About half a second of ical.js's work: a leap-day DAILY rule needs 1,461 a year. */
export const MAX_CANDIDATES_PER_RULE = 200_000;
/** About 10 s of work on a quiet machine, well inside the parse worker's time limit. */
export const MAX_CANDIDATES = 4_000_000;
/** Problems reported per fetch (the rest are counted in `skipped`). */
export const MAX_PROBLEMS = 20;

export interface ExpandResult {
  occurrences: Occurrence[];
  /** Occurrences left out because the feed expands to more than `maxOccurrences`. */
  truncated: number;
  /** VEVENTs left out: no usable DTSTART, or an unreadable date or rule. */
  skipped: number;
  /** TZIDs that matched no VTIMEZONE, IANA or Windows zone (read in the calendar's default zone). */
  unknownZones: string[];
  /** Events left out or cut short, with the reason (at most MAX_PROBLEMS). */
  problems: EventProblem[];
}

type JCal = [string, unknown[], JCal[]];

function overlaps(start: number, end: number, options: ExpandOptions): boolean {
  return start < options.windowEnd && (end > options.windowStart || start >= options.windowStart);
}

/** A floating copy of a UTC UNTIL, in the series' own zone (or a date for an all-day series). */
function localUntil(rule: ICAL.Recur, series: Vevent): ICAL.Recur {
  const until = rule.until;
  if (!until) return rule;
  const copy = rule.clone();
  if (series.dtstart.isDate && !until.isDate) {
    copy.until = ICAL.Time.fromData({ year: until.year, month: until.month, day: until.day, isDate: true });
  } else if (!series.dtstart.isDate && until.isDate) {
    copy.until = ICAL.Time.fromData({
      year: until.year,
      month: until.month,
      day: until.day,
      hour: 23,
      minute: 59,
      second: 59,
    });
  } else if (!series.dtstart.isDate && isUtc(until) && !isUtc(series.dtstart)) {
    const ms = Date.UTC(until.year, until.month - 1, until.day, until.hour, until.minute, until.second);
    const local = new Date(ms + series.zone.offsetAt(ms));
    copy.until = ICAL.Time.fromData({
      year: local.getUTCFullYear(),
      month: local.getUTCMonth() + 1,
      day: local.getUTCDate(),
      hour: local.getUTCHours(),
      minute: local.getUTCMinutes(),
      second: local.getUTCSeconds(),
    });
  }
  return copy;
}

interface Budget {
  steps: number;
  candidates: CandidateBudget;
  /** A series' problem that does not leave it out (its rule refused or cut short). */
  note(series: Vevent, problem: string): void;
}

/** Every occurrence of a recurring series inside the window, keyed by original start. */
function expandSeries(
  series: Vevent,
  zones: ZoneResolver,
  options: ExpandOptions,
  budget: Budget,
): Map<string, Occurrence> {
  const out = new Map<string, Occurrence>();
  const add = (m: Moment, length: Length) => {
    const end = endOf(m.ms, length);
    if (!overlaps(m.ms, end, options)) return;
    out.set(recurrenceKey(m), {
      uid: series.uid,
      recurrence_id: recurrenceKey(m),
      start: m.ms,
      end,
      all_day: m.allDay,
      ...series.fields,
    });
  };
  const step = () => {
    if (++budget.steps > options.maxSteps)
      throw new FeedProblem(
        `the calendar is too large: its recurring events need more than ${options.maxSteps} steps to expand`,
      );
  };

  const rules = series.component.getAllProperties('rrule');
  let first = rules.length === 0; // RDATE only: DTSTART is the first occurrence
  const lastDay = lastDayOf(options.windowEnd);
  for (const prop of rules) {
    const rule = prop.getFirstValue();
    if (!(rule instanceof ICAL.Recur)) continue;
    const never = neverMatches(rule);
    if (never) {
      budget.note(series, `${never}; only its start (DTSTART) is kept. Rule: ${String(rule).slice(0, 200)}`);
      first = true;
      continue;
    }
    const iterator = budgetedIterator(localUntil(rule, series), series.dtstart, lastDay, budget.candidates);
    try {
      let n = 0;
      for (; n < options.maxStepsPerSeries; n++) {
        const next = iterator.next();
        if (!next) break;
        step();
        const m = momentOf(next, series.zone);
        if (m.ms >= options.windowEnd) break;
        add(m, series.length);
      }
      if (n === options.maxStepsPerSeries)
        budget.note(series, `its recurrence stops after ${n} steps (the most one series may take)`);
    } catch (error) {
      if (!(error instanceof RuleOverBudget)) throw error;
      budget.note(
        series,
        `its recurrence rule matches too rarely to expand: it stops after ${budget.candidates.perRule} candidate dates. Rule: ${String(rule).slice(0, 200)}`,
      );
    }
  }
  if (first) add(series.start, series.length);
  for (const prop of series.component.getAllProperties('rdate')) {
    const zone = zones.resolve(tzidOf(prop));
    for (const value of prop.getValues()) {
      step();
      if (value instanceof ICAL.Time) add(momentOf(value, zone), series.length);
      else if (value instanceof ICAL.Period) {
        const start = momentOf(value.start, zone);
        const end = value.end
          ? momentOf(value.end, zone).ms
          : value.duration
            ? start.ms + value.duration.toSeconds() * 1000
            : endOf(start.ms, series.length);
        add(
          start,
          start.allDay
            ? { days: Math.max(1, Math.round((end - start.ms) / DAY_MS)) }
            : { ms: Math.max(0, end - start.ms) },
        );
      }
    }
  }
  for (const prop of series.component.getAllProperties('exdate')) {
    const zone = zones.resolve(tzidOf(prop));
    for (const value of prop.getValues()) {
      if (!(value instanceof ICAL.Time)) continue;
      const key = recurrenceKey(momentOf(value, zone));
      out.delete(key);
      // A date-only EXDATE on an all-day series, or written as a date-time at midnight.
      if (series.start.allDay) out.delete(key.slice(0, 10));
    }
  }
  return out;
}

function newer(a: Vevent | undefined, b: Vevent): boolean {
  return !a || b.sequence >= a.sequence;
}

/** Components of every VCALENDAR in the text (some exports concatenate several). */
function parseText(text: string): JCal[] {
  let parsed: unknown;
  try {
    parsed = ICAL.parse(text);
  } catch (error) {
    throw new FeedProblem(`not a valid iCalendar file: ${String((error as Error).message).slice(0, 200)}`);
  }
  const roots = (Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed : [parsed]) as JCal[];
  const calendars = roots.filter((r) => Array.isArray(r) && r[0] === 'vcalendar');
  if (calendars.length === 0) throw new FeedProblem('not a valid iCalendar file: no VCALENDAR');
  return calendars;
}

/** Parses an unfolded, decoded calendar and expands it (see the module comment). */
export function expandCalendar(text: string, options: ExpandOptions): ExpandResult {
  const calendars = parseText(text);
  const vtimezones: ICAL.Component[] = [];
  const vevents: JCal[] = [];
  let defaultTzid: string | undefined;
  for (const calendar of calendars) {
    const root = new ICAL.Component([calendar[0], calendar[1], []]);
    const wr = root.getFirstPropertyValue('x-wr-timezone');
    if (typeof wr === 'string' && !defaultTzid) defaultTzid = wr;
    for (const child of calendar[2]) {
      if (child[0] === 'vtimezone') vtimezones.push(new ICAL.Component(child));
      else if (child[0] === 'vevent') vevents.push(child);
    }
  }
  const zones = createZoneResolver(vtimezones, defaultTzid);

  // Each VEVENT is its own parentless component: a date's TZID is then read by us (zones.ts),
  // never by a search through the whole calendar.
  const series = new Map<string, { master?: Vevent; overrides: Map<string, Vevent> }>();
  let skipped = 0;
  const problems: EventProblem[] = [];
  const report = (uid: string | null, summary: string | null, problem: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ uid, summary, problem });
  };
  for (const jcal of vevents) {
    let v: Vevent | null;
    let reason = 'it has no usable start (DTSTART)';
    try {
      v = readVevent(new ICAL.Component(jcal), zones);
    } catch (error) {
      v = null;
      reason = `it could not be read: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
    }
    if (!v) {
      skipped++;
      report(...identify(jcal), `left out: ${reason}`);
      continue;
    }
    let entry = series.get(v.uid);
    if (!entry) {
      entry = { overrides: new Map() };
      series.set(v.uid, entry);
    }
    if (v.overrides === undefined) {
      if (newer(entry.master, v)) entry.master = v;
    } else if (newer(entry.overrides.get(v.overrides), v)) entry.overrides.set(v.overrides, v);
  }

  const kept = cappedList(options.maxOccurrences, options.now);
  const push = (o: Occurrence) => kept.push(o);
  const budget: Budget = {
    steps: 0,
    candidates: {
      perRule: options.maxCandidatesPerRule ?? MAX_CANDIDATES_PER_RULE,
      perFeed: options.maxCandidates ?? MAX_CANDIDATES,
      used: 0,
    },
    note: (v, problem) => report(v.uid, v.fields.summary, problem),
  };
  for (const { master, overrides } of series.values()) {
    let generated = new Map<string, Occurrence>();
    if (master) {
      const recurring = master.component.hasProperty('rrule') || master.component.hasProperty('rdate');
      if (!recurring && overrides.size === 0) {
        push(singleOccurrence(master, ''));
        continue;
      }
      try {
        generated = recurring
          ? expandSeries(master, zones, options, budget)
          : new Map([[recurrenceKey(master.start), singleOccurrence(master, recurrenceKey(master.start))]]);
      } catch (error) {
        if (error instanceof FeedProblem) throw error;
        skipped++;
        report(
          master.uid,
          master.fields.summary,
          `left out: its recurrence could not be expanded: ${String((error as Error)?.message ?? error).slice(0, 200)}`,
        );
        generated = new Map();
      }
    }
    for (const [key, override] of overrides) {
      const o = singleOccurrence(override, key);
      if (overlaps(o.start, o.end, options) || generated.has(key)) generated.set(key, o);
      else generated.delete(key);
    }
    for (const o of generated.values()) push(o);
  }
  return { ...kept.finish(), skipped, unknownZones: [...zones.unknown], problems };
}

/** The UID and summary of an unreadable VEVENT, as far as they can be read. */
function identify(jcal: JCal): [string | null, string | null] {
  const value = (name: string) => {
    const prop = (jcal[1] as unknown[][]).find((p) => Array.isArray(p) && p[0] === name);
    return typeof prop?.[3] === 'string' ? prop[3].slice(0, 200) : null;
  };
  return [value('uid'), value('summary')];
}
