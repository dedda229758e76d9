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
//   `maxStepsPerSeries` steps.
// Cost: linear in the size of the calendar plus the occurrences generated; time zones are
// built once per feed (zones.ts).

import ICAL from 'ical.js';
import { cappedList } from './cap.ts';
import { FeedProblem } from './problems.ts';
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
}

export interface ExpandResult {
  occurrences: Occurrence[];
  /** Occurrences left out because the feed expands to more than `maxOccurrences`. */
  truncated: number;
  /** VEVENTs left out: no usable DTSTART, or an unreadable date or rule. */
  skipped: number;
  /** TZIDs that matched no VTIMEZONE, IANA or Windows zone (read in the calendar's default zone). */
  unknownZones: string[];
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
  if (rules.length === 0) add(series.start, series.length); // RDATE only: DTSTART is the first occurrence
  for (const prop of rules) {
    const rule = prop.getFirstValue();
    if (!(rule instanceof ICAL.Recur)) continue;
    const iterator = localUntil(rule, series).iterator(series.dtstart);
    for (let n = 0; n < options.maxStepsPerSeries; n++) {
      const next = iterator.next();
      if (!next) break;
      step();
      const m = momentOf(next, series.zone);
      if (m.ms >= options.windowEnd) break;
      add(m, series.length);
    }
  }
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
  for (const jcal of vevents) {
    let v: Vevent | null;
    try {
      v = readVevent(new ICAL.Component(jcal), zones);
    } catch {
      v = null;
    }
    if (!v) {
      skipped++;
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
  const budget: Budget = { steps: 0 };
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
  return { ...kept.finish(), skipped, unknownZones: [...zones.unknown] };
}
