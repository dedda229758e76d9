// Calendar days in an institution's time zone. An institution names an IANA zone
// (`Australia/Sydney`, default `UTC`); a student's "today", the first instant of a day and the
// times the student pages print are read in it. Built on Intl only: the zone database is the
// one Node ships, so a zone that Node does not know is refused when it is saved.

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's canonical name (`europe/london` → `Europe/London`), or undefined if unknown. */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function partsIn(zone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    dateFormats.set(zone, format);
  }
  return format;
}

/** The wall-clock fields of an instant in a zone, zero-padded: year, month, day, hour (00-23), minute, second. */
export function wallClockParts(instant: number | Date, zone: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of partsIn(zone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = part.value;
  }
  return parts;
}

/**
 * `2026-11-25 18:20 Europe/London`: an instant on the zone's wall clock with the zone named, as
 * the console and the emails show times.
 */
export function formatInZone(instant: Date, zone: string): string {
  const p = wallClockParts(instant, zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${zone}`;
}

/** The wall-clock reading of an instant in a zone, as if it were UTC (milliseconds). */
function wallClock(instant: number, zone: string): number {
  const p = wallClockParts(instant, zone);
  return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
}

/** The zone's offset from UTC at an instant, in milliseconds (east positive). */
export function offsetAt(instant: number, zone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClock(whole, zone) - whole;
}

/** The calendar date (YYYY-MM-DD) an instant falls on in the zone. */
export function dateIn(instant: Date, zone: string): string {
  return new Date(wallClock(instant.getTime(), zone)).toISOString().slice(0, 10);
}

/**
 * The first instant of a calendar date (YYYY-MM-DD) in the zone: its midnight, or, where a
 * daylight-saving change skips midnight, the first moment after the gap.
 */
export function startOfDate(date: string, zone: string): Date {
  const asUtc = Date.parse(`${date}T00:00:00Z`);
  // Two rounds settle the offset in force at that midnight (it may differ from the offset at
  // the UTC midnight of the same date when a change happens in between).
  let instant = asUtc - offsetAt(asUtc, zone);
  instant = asUtc - offsetAt(instant, zone);
  if (dateIn(new Date(instant), zone) < date) instant += 3_600_000; // midnight fell in a gap
  return new Date(instant);
}

/**
 * The instant a wall-clock time (YYYY-MM-DDTHH:MM, as a datetime-local input gives it) names in
 * the zone. A time skipped by a daylight-saving change reads as the same clock time in the
 * offset before the change (an hour later in real time); a repeated time as its first occurrence.
 */
export function instantOfWallClock(value: string, zone: string): Date {
  const asUtc = Date.parse(`${value}:00Z`);
  let instant = asUtc - offsetAt(asUtc, zone);
  instant = asUtc - offsetAt(instant, zone);
  return new Date(instant);
}
