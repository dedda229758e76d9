// The stored occurrences of an institution's feeds in a time window, as the admin API (and the
// student pages) show them: timed events as UTC instants, all-day events as dates with an
// exclusive end, as iCalendar writes them.
// One query, on the (institution_id, starts_at) index: rows are those starting before `to`
// whose end is after `from` (a zero-length event at `from` counts).

import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from './feeds.ts';
import type { StoredEvent } from './model.ts';
import { selectEventsInWindow } from './sql/occurrences.ts';

/** Longest window one listing may ask for (the stored expansion spans 580 days). */
export const MAX_WINDOW_DAYS = 800;

export interface EventWindowQuery {
  from?: unknown;
  to?: unknown;
  feed_id?: unknown;
  limit: number;
  offset: number;
}

export interface CalendarEventOut {
  feed_id: string;
  uid: string;
  recurrence_id: string | null;
  start: string;
  end: string;
  all_day: boolean;
  summary: string | null;
  location: string | null;
  description: string | null;
  status: 'confirmed' | 'tentative' | 'cancelled';
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A window bound: a date (midnight UTC) or a date-time with its offset. */
export function parseBound(value: unknown, field: string): Date {
  if (value === undefined || value === '')
    throw new ApiError('missing_field', {
      field,
      detail: `${field} is required (a date or an ISO 8601 date-time)`,
    });
  const text = typeof value === 'string' ? value : '';
  const ms = datePattern.test(text)
    ? Date.parse(`${text}T00:00:00Z`)
    : dateTimePattern.test(text)
      ? Date.parse(text)
      : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March: check the date part round-trips.
  const dateOk =
    Number.isFinite(ms) && (!datePattern.test(text) || new Date(ms).toISOString().startsWith(text));
  if (!dateOk || ms < Date.UTC(1900, 0, 1) || ms > Date.UTC(2200, 0, 1))
    throw new ApiError('invalid_field', {
      field,
      detail: `${field}: a date (2026-09-01) or an ISO 8601 date-time with offset (2026-09-01T08:00:00Z), 1900 to 2200`,
    });
  return new Date(ms);
}

export async function listEvents(
  q: Queryable,
  institutionId: string,
  query: EventWindowQuery,
): Promise<CalendarEventOut[]> {
  const from = parseBound(query.from, 'from');
  const to = parseBound(query.to, 'to');
  if (to.getTime() <= from.getTime())
    throw new ApiError('invalid_field', { field: 'to', detail: 'to must be later than from' });
  if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * 86_400_000)
    throw new ApiError('invalid_field', {
      field: 'to',
      detail: `the window may span at most ${MAX_WINDOW_DAYS} days`,
    });
  let feedId: string | null = null;
  if (query.feed_id !== undefined) {
    if (typeof query.feed_id !== 'string' || !uuidPattern.test(query.feed_id))
      throw new ApiError('invalid_field', { field: 'feed_id', detail: 'feed_id must be a calendar feed id' });
    feedId = query.feed_id;
  }
  const rows = await selectEventsInWindow(q, institutionId, {
    from,
    to,
    feedId,
    limit: query.limit,
    offset: query.offset,
  });
  return rows.map(eventOut);
}

/**
 * A stored occurrence as the listings show it: timed events as UTC instants, all-day events as
 * dates (the end exclusive); the empty recurrence id of a plain event is null.
 */
export function eventOut(r: StoredEvent): CalendarEventOut {
  const at = (instant: Date) => (r.all_day ? instant.toISOString().slice(0, 10) : instant.toISOString());
  return {
    feed_id: r.feed_id,
    uid: r.uid,
    recurrence_id: r.recurrence_id === '' ? null : r.recurrence_id,
    start: at(r.starts_at),
    end: at(r.ends_at),
    all_day: r.all_day,
    summary: r.summary,
    location: r.location,
    description: r.description,
    status: r.status,
  };
}
