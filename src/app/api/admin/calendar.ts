// Admin API: an institution's calendar feeds (public .ics URLs fetched on a schedule), their
// fetch history, on-demand fetches, and the stored occurrences in a window. Rules, limits and
// time-zone handling: docs/calendar-feeds.md.
import { Type } from 'typebox';
import { MAX_WINDOW_DAYS } from '../../../domain/calendar/events.ts';
import {
  DEFAULT_LIMITS,
  MAX_REFRESH_MINUTES,
  MAX_STORED_OCCURRENCES,
  MIN_REFRESH_MINUTES,
} from '../../../domain/calendar/schedule.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminSecurity, DateTime, errorResponses, SlugParams, Text, Uuid } from '../schemas.ts';

// Calendar listings page by offset: feeds are few, fetch history is capped per feed, and events
// are bounded by their window. (The other admin listings use cursors; see docs/admin-listings.md.)
const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
});

function page(query: { limit?: number; offset?: number }) {
  return { limit: query.limit ?? 100, offset: query.offset ?? 0 };
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const FetchStatus = Type.Union([Type.Literal('ok'), Type.Literal('not_modified'), Type.Literal('failed')]);

const Feed = Type.Object({
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

const FetchRecord = Type.Object({
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
});

const CalendarEvent = Type.Object({
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

const urlDescription =
  'A public calendar address (.ics): https only (webcal:// is read as https://); the host must not be or resolve to a loopback, private, ' +
  'link-local, carrier-grade NAT, multicast, reserved or metadata address in any spelling. Checked when saved, again on ' +
  'the address actually connected to, and on every redirect hop. The development setting ALLOW_LOOPBACK_OUTBOUND allows loopback and plain http to it.';

const FeedParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Calendar feed id') })]);

const List = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ items: Type.Array(item), limit: Type.Integer(), offset: Type.Integer() });

const feedFields = {
  name: Type.Optional(Nullable(Text({ maxLength: 200 }))),
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

const limitsText = `Limits per fetch: ${DEFAULT_LIMITS.timeoutMs / 1000} s to download (connect, redirects, body), ${DEFAULT_LIMITS.maxBytes / 1024 / 1024} MB, ${DEFAULT_LIMITS.maxRedirects} redirects; ${DEFAULT_LIMITS.parseTimeoutMs / 1000} s and ${DEFAULT_LIMITS.parseMemoryMb} MB to read the calendar; ${MAX_STORED_OCCURRENCES} occurrences stored (a larger feed is stored truncated, see \`events_truncated\`). Recurring events are expanded from ${DEFAULT_LIMITS.windowPastDays} days before to ${DEFAULT_LIMITS.windowFutureDays} days after each fetch.`;

export function adminCalendarRoutes(app: App, services: Services): void {
  const { calendar } = services;
  const tags = ['calendar'];
  const security = adminSecurity;
  const base = '/admin/v1/institutions/:slug/calendar-feeds';

  app.post(
    base,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Add a calendar feed',
        description:
          'An .ics address the service fetches on a schedule (every `refresh_minutes`, default 60) with conditional requests. ' +
          `The feed is due at once. ${limitsText}`,
        params: SlugParams,
        body: Type.Object({
          url: Type.String({
            maxLength: 2048,
            description: urlDescription,
            examples: ['https://calendar.example.edu/term.ics'],
          }),
          ...feedFields,
        }),
        response: { 201: Feed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await calendar.create(institutionOf(request).id, request.body)),
  );

  app.get(
    base,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'List calendar feeds, with their health',
        params: SlugParams,
        querystring: PageQuery,
        response: { 200: List(Feed), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({
      items: await calendar.list(institutionOf(request).id, page(request.query)),
      ...page(request.query),
    }),
  );

  app.get(
    `${base}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Read a calendar feed',
        params: FeedParams,
        response: { 200: Feed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => calendar.get(institutionOf(request).id, request.params.id),
  );

  app.patch(
    `${base}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Update a calendar feed: url, name, refresh interval, audience',
        description:
          'Fields left out are unchanged; `name: null` clears the name. A new URL starts afresh: its validators and failure run are cleared, ' +
          'a fetch in flight for the old URL is dropped, and the feed is due at once. Stored events stay until the next successful fetch replaces them.',
        params: FeedParams,
        body: Type.Object({
          url: Type.Optional(Type.String({ maxLength: 2048, description: urlDescription })),
          ...feedFields,
        }),
        response: { 200: Feed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => calendar.update(institutionOf(request).id, request.params.id, request.body),
  );

  app.delete(
    `${base}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Delete a calendar feed, its events and its fetch history',
        params: FeedParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await calendar.remove(institutionOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${base}/:id/fetch`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Fetch a calendar feed now and return the fetch record',
        description:
          'Waits for the fetch (at most the time limit) and answers 200 with its record whatever happened: `status` is ok (events stored), ' +
          'not_modified (304 to the conditional request) or failed (`error` says why; the stored events are unchanged). The next scheduled ' +
          'fetch is counted from now. 409 fetch_in_progress when this feed is being fetched already. ' +
          limitsText,
        params: FeedParams,
        response: { 200: FetchRecord, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => calendar.fetchNow(institutionOf(request).id, request.params.id),
  );

  app.get(
    `${base}/:id/fetches`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Fetch history of a calendar feed, newest first (the last 200 are kept)',
        params: FeedParams,
        querystring: PageQuery,
        response: { 200: List(FetchRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({
      items: await calendar.fetches(institutionOf(request).id, request.params.id, page(request.query)),
      ...page(request.query),
    }),
  );

  app.get(
    '/admin/v1/institutions/:slug/calendar-events',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Occurrences of every calendar feed of the institution in a window',
        description:
          'Occurrences that overlap [from, to), ordered by start. `from` and `to` are dates (midnight UTC) or ISO 8601 date-times with an offset; ' +
          `the window spans at most ${MAX_WINDOW_DAYS} days. All-day events match by their dates taken as UTC days. Cancelled occurrences are listed with status cancelled; ` +
          'occurrences removed by EXDATE are not listed. Recurring events are stored only within the expansion window of the last fetch.',
        params: SlugParams,
        querystring: Type.Intersect([
          PageQuery,
          Type.Object({
            from: Type.String({ maxLength: 40, examples: ['2026-09-01'] }),
            to: Type.String({ maxLength: 40, examples: ['2026-10-13'] }),
            feed_id: Type.Optional(Uuid('Only this feed')),
          }),
        ]),
        response: { 200: List(CalendarEvent), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({
      items: await calendar.events(institutionOf(request).id, {
        ...request.query,
        ...page(request.query),
      }),
      ...page(request.query),
    }),
  );
}
