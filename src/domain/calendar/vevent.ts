// One VEVENT read into what expansion needs: its identity (UID, or one derived from its start,
// summary and location), its start as an instant in its zone, its length, the text fields and
// status, its SEQUENCE, and which occurrence it overrides (RECURRENCE-ID). Dates are read with
// the feed's zone resolver (zones.ts), never by ical.js searching the calendar.
// - Ends: DTEND, else DURATION, else the start (timed) or the next day (all-day). All-day
//   events are dates: start at midnight UTC of their date, end exclusive; an all-day DTEND equal
//   to (or before) DTSTART is read as one day.
// - Text: no NUL, no lone surrogate, cut at TEXT_MAX (ics-text.ts).

import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { storableText } from './ics-text.ts';
import type { Zone, ZoneResolver } from './zones.ts';

export type OccurrenceStatus = 'confirmed' | 'tentative' | 'cancelled';

export interface Occurrence {
  uid: string;
  /** '' for a single event; otherwise the occurrence's original start (ISO UTC, or a date when all-day). */
  recurrence_id: string;
  /** UTC ms; all-day: midnight UTC of the start date. */
  start: number;
  /** UTC ms, >= start; all-day: midnight UTC of the day after the last day. */
  end: number;
  all_day: boolean;
  summary: string | null;
  location: string | null;
  description: string | null;
  status: OccurrenceStatus;
}

export const DAY_MS = 86_400_000;
const TEXT_MAX = { uid: 1000, summary: 1000, location: 1000, description: 10_000 };

export interface Moment {
  ms: number;
  allDay: boolean;
}

/** A length of time: whole days for all-day events, milliseconds for timed ones. */
export type Length = { days: number } | { ms: number };

export interface Vevent {
  uid: string;
  component: ICAL.Component;
  dtstart: ICAL.Time;
  zone: Zone;
  start: Moment;
  length: Length;
  sequence: number;
  /** Key of the occurrence an override replaces. */
  overrides?: string;
  fields: Pick<Occurrence, 'summary' | 'location' | 'description' | 'status'>;
}

export function recurrenceKey(m: Moment): string {
  const iso = new Date(m.ms).toISOString();
  return m.allDay ? iso.slice(0, 10) : iso.replace(/\.\d{3}Z$/, 'Z');
}

function statusOf(value: unknown): OccurrenceStatus {
  const s = typeof value === 'string' ? value.trim().toUpperCase() : '';
  return s === 'CANCELLED' ? 'cancelled' : s === 'TENTATIVE' ? 'tentative' : 'confirmed';
}

export function isUtc(t: ICAL.Time): boolean {
  return t.zone === ICAL.Timezone.utcTimezone || t.zone?.tzid === 'UTC';
}

export function tzidOf(prop: ICAL.Property): string | undefined {
  const tzid = prop.getParameter('tzid');
  return typeof tzid === 'string' ? tzid : Array.isArray(tzid) ? tzid[0] : undefined;
}

/** The instant of a DATE or DATE-TIME value, given the zone its TZID names. */
export function momentOf(t: ICAL.Time, zone: Zone): Moment {
  if (t.isDate) return { ms: Date.UTC(t.year, t.month - 1, t.day), allDay: true };
  if (isUtc(t))
    return { ms: Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second), allDay: false };
  const ms = zone.toUtc(t);
  if (!Number.isFinite(ms)) throw new Error('date out of range');
  return { ms, allDay: false };
}

function lengthOf(component: ICAL.Component, start: Moment, zones: ZoneResolver): Length {
  const dtendProp = component.getFirstProperty('dtend');
  if (dtendProp) {
    const dtend = dtendProp.getFirstValue() as ICAL.Time | null;
    if (dtend instanceof ICAL.Time) {
      const end = momentOf(dtend, zones.resolve(tzidOf(dtendProp)));
      const diff = end.ms - start.ms;
      // DTEND equal to (or before) an all-day start: a one-day event, as most clients read it.
      if (start.allDay) return { days: Math.max(1, Math.round(diff / DAY_MS)) };
      return { ms: Math.max(0, diff) };
    }
  }
  const duration = component.getFirstPropertyValue('duration');
  if (duration instanceof ICAL.Duration) {
    const seconds = Math.max(0, duration.toSeconds());
    return start.allDay ? { days: Math.max(1, Math.ceil(seconds / 86_400)) } : { ms: seconds * 1000 };
  }
  return start.allDay ? { days: 1 } : { ms: 0 };
}

export function endOf(start: number, length: Length): number {
  return 'days' in length ? start + length.days * DAY_MS : start + length.ms;
}

export function readVevent(component: ICAL.Component, zones: ZoneResolver): Vevent | null {
  const dtstartProp = component.getFirstProperty('dtstart');
  if (!dtstartProp) return null;
  const dtstart = dtstartProp.getFirstValue();
  if (!(dtstart instanceof ICAL.Time)) return null;
  const zone = zones.resolve(tzidOf(dtstartProp));
  const start = momentOf(dtstart, zone);
  const fields = {
    summary: storableText(component.getFirstPropertyValue('summary'), TEXT_MAX.summary),
    location: storableText(component.getFirstPropertyValue('location'), TEXT_MAX.location),
    description: storableText(component.getFirstPropertyValue('description'), TEXT_MAX.description),
    status: statusOf(component.getFirstPropertyValue('status')),
  };
  let uid = storableText(component.getFirstPropertyValue('uid'), TEXT_MAX.uid)?.trim();
  if (!uid) {
    // No UID (seen in hand-made exports): one derived from what identifies the event, so the
    // same event keeps its identity from one fetch to the next.
    uid = `no-uid-${createHash('sha256')
      .update(`${recurrenceKey(start)}\n${fields.summary ?? ''}\n${fields.location ?? ''}`)
      .digest('hex')
      .slice(0, 32)}`;
  }
  const sequence = Number(component.getFirstPropertyValue('sequence'));
  const vevent: Vevent = {
    uid,
    component,
    dtstart,
    zone,
    start,
    length: lengthOf(component, start, zones),
    sequence: Number.isFinite(sequence) ? sequence : 0,
    fields,
  };
  const ridProp = component.getFirstProperty('recurrence-id');
  if (ridProp) {
    const rid = ridProp.getFirstValue();
    if (!(rid instanceof ICAL.Time)) return null;
    vevent.overrides = recurrenceKey(momentOf(rid, zones.resolve(tzidOf(ridProp))));
  }
  return vevent;
}

export function singleOccurrence(v: Vevent, recurrenceId: string): Occurrence {
  return {
    uid: v.uid,
    recurrence_id: recurrenceId,
    start: v.start.ms,
    end: endOf(v.start.ms, v.length),
    all_day: v.start.allDay,
    ...v.fields,
  };
}
