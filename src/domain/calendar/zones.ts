// Time zones of a feed: from wall-clock time in a TZID to a UTC instant, and back.
//
// Resolution order for a TZID (first that applies):
//   1. a VTIMEZONE block of the same feed with that TZID (what the author's client meant);
//   2. an IANA name known to this Node.js (full ICU data), e.g. Europe/Berlin;
//   3. a Windows zone name as Outlook and Exchange write it (e.g. "W. Europe Standard Time"),
//      mapped to IANA with the `windows-iana` package (the Unicode CLDR table);
//   4. a path ending in an IANA name, as older Thunderbird and Lotus exports write it
//      ("/mozilla.org/20050126_1/Europe/Berlin");
//   5. otherwise the calendar's default zone (X-WR-TIMEZONE), else UTC.
// Floating times (no TZID, no Z) use the calendar's default zone, else UTC.
//
// Each VTIMEZONE is turned into an ical.js Timezone ONCE per parse and looked up by TZID in a
// map. ical.js would otherwise resolve a TZID by searching the whole calendar component for
// every date it decodes, which makes a 20,000-event feed quadratic (over a minute). The map is
// per feed, not ICAL.TimezoneService: that registry is process-wide, and one institution's
// "Customized Time Zone" must never change how another institution's feed is read.

import ICAL from 'ical.js';
import { findIana } from 'windows-iana';

export interface Wall {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface Zone {
  /** What the zone resolved to (an IANA name, `vtimezone:<TZID>`, or UTC). */
  readonly name: string;
  /** The UTC instant (ms) of a wall-clock time in this zone. */
  toUtc(wall: Wall): number;
  /** Offset from UTC (ms, east positive) in force at a UTC instant. */
  offsetAt(utcMs: number): number;
}

export const utcZone: Zone = {
  name: 'UTC',
  toUtc: (w) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second),
  offsetAt: () => 0,
};

const DAY_MS = 86_400_000;

/**
 * Wall time to UTC given only "offset at an instant": tries the offsets in force a day
 * before and a day after. Of two valid answers (a repeated hour when clocks go back) the
 * earlier wins; a wall time that does not exist (clocks go forward) is read with the offset
 * before the change, so it lands that much later, as RFC 5545 3.3.5 asks.
 */
export function wallToUtc(wall: Wall, offsetAt: (ms: number) => number): number {
  const t = utcZone.toUtc(wall);
  const before = offsetAt(t - DAY_MS);
  const after = offsetAt(t + DAY_MS);
  // No change of offset within a day either side (nearly always): nothing to disambiguate.
  if (before === after) return t - before;
  const a = t - before;
  const b = t - after;
  const aValid = offsetAt(a) === before;
  const bValid = offsetAt(b) === after;
  if (aValid && bValid) return Math.min(a, b);
  if (aValid) return a;
  if (bValid) return b;
  return a;
}

/**
 * A zone from its offset at the start of a minute. Offsets only change on whole minutes: they are
 * cached per minute (timetables repeat times).
 */
function zoneOfMinutes(name: string, offsetOfMinute: (minuteStart: number) => number): Zone {
  const offsets = new Map<number, number>();
  const offsetAt = (ms: number): number => {
    const minute = Math.floor(ms / 60_000);
    const known = offsets.get(minute);
    if (known !== undefined) return known;
    const offset = offsetOfMinute(minute * 60_000);
    if (offsets.size > 200_000) offsets.clear();
    offsets.set(minute, offset);
    return offset;
  };
  return { name, offsetAt, toUtc: (wall) => wallToUtc(wall, offsetAt) };
}

const ianaCache = new Map<string, Zone | null>();

/** An IANA zone through Intl, or null when this runtime does not know the name. */
export function ianaZone(name: string): Zone | null {
  const cached = ianaCache.get(name);
  if (cached !== undefined) return cached;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    ianaCache.set(name, null);
    return null;
  }
  const zone = zoneOfMinutes(format.resolvedOptions().timeZone, (start) => {
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(start))
      if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - start;
  });
  ianaCache.set(name, zone);
  return zone;
}

/** A zone defined by a VTIMEZONE component (ical.js computes its transitions). */
export function vtimezoneZone(component: ICAL.Component): Zone | null {
  let tz: ICAL.Timezone;
  try {
    tz = new ICAL.Timezone(component);
    if (!tz.tzid) return null;
    // Fail here, not on first use, when the block has no usable STANDARD/DAYLIGHT rules.
    tz.utcOffset(ICAL.Time.fromData({ year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0 }));
  } catch {
    return null;
  }
  const computeOffset = (ms: number): number => {
    const d = new Date(Math.floor(ms / 1000) * 1000);
    const utc = ICAL.Time.fromData(
      {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
        second: d.getUTCSeconds(),
        isDate: false,
      },
      ICAL.Timezone.utcTimezone,
    );
    const local = utc.convertToZone(tz);
    return (
      Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) -
      Math.floor(ms / 1000) * 1000
    );
  };
  return zoneOfMinutes(`vtimezone:${tz.tzid}`, computeOffset);
}

/** The IANA zone for a Windows zone name, if the CLDR table knows it. */
export function windowsZone(name: string): Zone | null {
  let iana: string[] | undefined;
  try {
    iana = findIana(name as never) as string[] | undefined;
  } catch {
    return null;
  }
  for (const candidate of iana ?? []) {
    const zone = ianaZone(candidate);
    if (zone) return zone;
  }
  return null;
}

/** "/mozilla.org/20050126_1/Europe/Berlin" -> Europe/Berlin (the longest known suffix). */
function pathZone(name: string): Zone | null {
  if (!name.includes('/')) return null;
  const parts = name.split('/').filter(Boolean);
  for (let i = 0; i < parts.length - 1; i++) {
    const candidate = parts.slice(i).join('/');
    if (/^[A-Za-z]/.test(candidate)) {
      const zone = ianaZone(candidate);
      if (zone) return zone;
    }
  }
  return null;
}

export interface ZoneResolver {
  /** The zone for a TZID parameter; undefined/empty means a floating time. */
  resolve(tzid: string | null | undefined): Zone;
  /** TZIDs that matched nothing and were read in the default zone. */
  readonly unknown: Set<string>;
}

/** One resolver per parse: every VTIMEZONE block is built once, every TZID resolved once. */
export function createZoneResolver(vtimezones: ICAL.Component[], defaultTzid?: string | null): ZoneResolver {
  const blocks = new Map<string, ICAL.Component>();
  for (const component of vtimezones) {
    const tzid = component.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && tzid !== '' && !blocks.has(tzid)) blocks.set(tzid, component);
  }
  const resolved = new Map<string, Zone | null>();
  const unknown = new Set<string>();

  function lookup(tzid: string): Zone | null {
    if (resolved.has(tzid)) return resolved.get(tzid) ?? null;
    const trimmed = tzid.trim().replace(/^"|"$/g, '');
    let zone: Zone | null = null;
    const block = blocks.get(tzid) ?? blocks.get(trimmed);
    if (block) zone = vtimezoneZone(block);
    if (!zone && /^(utc|gmt|z|etc\/utc|etc\/gmt)$/i.test(trimmed)) zone = utcZone;
    zone ??= ianaZone(trimmed) ?? windowsZone(trimmed) ?? pathZone(trimmed);
    resolved.set(tzid, zone);
    return zone;
  }

  const fallback = (defaultTzid && lookup(defaultTzid)) || utcZone;
  return {
    unknown,
    resolve(tzid) {
      if (!tzid) return fallback;
      const zone = lookup(tzid);
      if (zone) return zone;
      unknown.add(tzid);
      return fallback;
    },
  };
}
