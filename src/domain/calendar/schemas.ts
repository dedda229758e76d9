// The shapes of calendar feeds, defined once: a feed with its health, a fetch record, a stored
// occurrence, and what adding or changing a feed takes. The admin API uses them as its request and
// response schemas and the console's calendar pages check their forms with them, so the two
// accept the same values (the domain then checks each value again: feeds.ts).
import { type Static, Type } from 'typebox';
import { DateTime, DisplayName, Uuid } from '../../lib/schema.ts';
import { MAX_REFRESH_MINUTES, MAX_STORED_OCCURRENCES, MIN_REFRESH_MINUTES } from './schedule.ts';

/** A schema or null, as an anyOf (how these shapes have always been written in the API's document). */
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const FetchStatus = Type.Union([
  Type.Literal('ok'),
  Type.Literal('not_modified'),
  Type.Literal('failed'),
]);

export const Feed = Type.Object({
  id: Uuid(),
  institution_id: Uuid(),
  url: Type.String(),
  name: Nullable(Type.String()),
  refresh_minutes: Type.Integer(),
  audience_tags: Type.Array(Uuid(), {
    description: 'Audience tag ids (program or campus) the feed is meant for; empty: every student',
  }),
  health: Type.Union([Type.Literal('pending'), Type.Literal('ok'), Type.Literal('failing')], {
    description:
      'pending: never fetched; ok: the last fetch succeeded (or was not modified); failing: the last fetch failed',
  }),
  last_status: Nullable(FetchStatus),
  last_error: Nullable(Type.String({ description: 'Why the last fetch failed, for people' })),
  failure_count: Type.Integer({ description: 'Failed fetches in a row (drives the backoff)' }),
  failing_since: Nullable(DateTime('Start of the current run of failed fetches')),
  last_fetch_at: Nullable(DateTime()),
  last_success_at: Nullable(DateTime()),
  events_truncated: Type.Integer({
    description: `Occurrences the last successful fetch left out because the feed expands to more than a feed may store (${MAX_STORED_OCCURRENCES}); 0 when it fits. The stored ones are those still to come, earliest first, then the latest past ones`,
  }),
  next_fetch_at: DateTime('Next scheduled fetch (while a fetch is in flight: its lease expiry)'),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const FetchRecord = Type.Object({
  id: Type.Integer(),
  feed_id: Uuid(),
  trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')]),
  started_at: DateTime(),
  duration_ms: Type.Integer(),
  status: FetchStatus,
  http_status: Nullable(Type.Integer({ description: 'Status of the last response received, if any' })),
  events_added: Type.Integer({ description: 'Occurrences added by this fetch' }),
  events_updated: Type.Integer({ description: 'Occurrences whose time, text or status changed' }),
  events_removed: Type.Integer({ description: 'Occurrences no longer in the feed (or out of the window)' }),
  events_total: Nullable(Type.Integer({ description: 'Occurrences stored for the feed after this fetch' })),
  events_skipped: Type.Integer({
    description: 'VEVENTs left out: no usable DTSTART, or an unreadable date or rule',
  }),
  events_truncated: Type.Integer({
    description: `Occurrences left out because the feed expands to more than a feed may store (${MAX_STORED_OCCURRENCES})`,
  }),
  error: Nullable(Type.String({ description: 'Why the fetch failed; stored events were left as they were' })),
  problems: Type.Array(
    Type.Object({
      uid: Nullable(Type.String({ description: 'The event UID in the feed, when it could be read' })),
      summary: Nullable(Type.String({ description: 'The event summary, when it could be read' })),
      problem: Type.String({
        description:
          'What was wrong and what was done: left out (unreadable), kept at its start only (a recurrence rule that can never match a date), or cut short (a rule that matches too rarely to expand, or a series over its step limit)',
      }),
    }),
    {
      maxItems: 20,
      description:
        'Events this fetch left out or cut short, the first 20 (the fetch itself went on and stored the rest)',
    },
  ),
});

export const CalendarEvent = Type.Object({
  feed_id: Uuid(),
  uid: Type.String({ description: 'The event UID in the feed' }),
  recurrence_id: Nullable(
    Type.String({
      description:
        'null for a single event; for an occurrence of a recurring event, its original start (UTC instant, or a date for all-day events), also when an override moved it',
    }),
  ),
  start: Type.String({
    description: 'Timed: UTC instant (2026-09-07T07:00:00.000Z); all-day: a date (2026-09-07)',
  }),
  end: Type.String({ description: 'Timed: UTC instant; all-day: the date after the last day (exclusive)' }),
  all_day: Type.Boolean(),
  summary: Nullable(Type.String()),
  location: Nullable(Type.String()),
  description: Nullable(Type.String()),
  status: Type.Union([Type.Literal('confirmed'), Type.Literal('tentative'), Type.Literal('cancelled')]),
});

export const urlDescription =
  'A public calendar address (.ics): https only (webcal:// is read as https://); the host must not be or resolve to a loopback, private, ' +
  'link-local, carrier-grade NAT, multicast, reserved or metadata address in any spelling. Checked when saved, again on ' +
  'the address actually connected to, and on every redirect hop. The development setting ALLOW_LOOPBACK_OUTBOUND allows loopback and plain http to it.';

export const feedFields = {
  name: Type.Optional(Nullable(DisplayName({ maxLength: 200, nonBlank: false }))),
  refresh_minutes: Type.Optional(
    Type.Integer({
      minimum: MIN_REFRESH_MINUTES,
      maximum: MAX_REFRESH_MINUTES,
      description: `Minutes between scheduled fetches (default 60)`,
    }),
  ),
  audience_tags: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: 100,
      description:
        'Audience tag ids of this institution (program or campus); empty or omitted: every student',
    }),
  ),
};

/** Adding a feed. */
export const NewFeedBody = Type.Object({
  url: Type.String({
    maxLength: 2048,
    description: urlDescription,
    examples: ['https://calendar.example.edu/term.ics'],
  }),
  ...feedFields,
});
export type NewFeedBody = Static<typeof NewFeedBody>;

/** Changing a feed: fields left out are unchanged. */
export const FeedChangeBody = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 2048, description: urlDescription })),
  ...feedFields,
});
export type FeedChangeBody = Static<typeof FeedChangeBody>;
