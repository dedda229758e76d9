// Times as the console shows them: in the institution's own time zone, with the zone named, in
// one format ("2026-11-25 13:15 America/New_York"), so a run, a delivery or an audit entry reads
// as the institution's day; and the institution's dates (a date input) as the instants they
// begin at there.
import { formatInZone, startOfDate } from '../../../lib/time-zones.ts';

/** An instant in the zone, with the zone named; '—' when there is none. */
export function timeIn(value: unknown, zone: string): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) return String(value);
  return formatInZone(date, zone);
}

/** A formatter bound to the institution's zone, for a view model. */
export const timesIn = (zone: string) => (value: unknown) => timeIn(value, zone);

const DAY_MS = 86_400_000;

/** The instants a range of the institution's dates covers: from the first's midnight to after the last. */
export function dayRange(zone: string, from?: string, to?: string): { from?: Date; to?: Date } {
  const next = (date: string) =>
    new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  return {
    from: from ? startOfDate(from, zone) : undefined,
    to: to ? startOfDate(next(to), zone) : undefined,
  };
}
