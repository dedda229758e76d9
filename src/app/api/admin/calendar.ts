// Admin API: an institution's calendar feeds (public .ics URLs fetched on a schedule), their
// fetch history, on-demand fetches, and the stored occurrences in a window. Rules, limits and
// time-zone handling: docs/calendar-feeds.md.
import { Type } from 'typebox';
import { listEvents, MAX_WINDOW_DAYS } from '../../../domain/calendar/events.ts';
import * as feeds from '../../../domain/calendar/feeds.ts';
import { fetchFeedNow } from '../../../domain/calendar/fetch-now.ts';
import { DEFAULT_LIMITS, MAX_STORED_OCCURRENCES } from '../../../domain/calendar/schedule.ts';
import {
  CalendarEvent,
  Feed,
  FeedChangeBody,
  FetchRecord,
  NewFeedBody,
} from '../../../domain/calendar/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { errorResponses, ItemParams, Uuid } from '../schemas.ts';

// Calendar listings page by offset: feeds are few, fetch history is capped per feed, and events
// are bounded by their window. (The other admin listings use cursors; see docs/admin-listings.md.)
const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
});

function page(query: { limit?: number; offset?: number }) {
  return { limit: query.limit ?? 100, offset: query.offset ?? 0 };
}

const FeedParams = ItemParams('Calendar feed id');

const List = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ items: Type.Array(item), limit: Type.Integer(), offset: Type.Integer() });

const limitsText = `Limits per fetch: ${DEFAULT_LIMITS.timeoutMs / 1000} s to download (connect, redirects, body), ${DEFAULT_LIMITS.maxBytes / 1024 / 1024} MB, ${DEFAULT_LIMITS.maxRedirects} redirects; ${DEFAULT_LIMITS.parseTimeoutMs / 1000} s and ${DEFAULT_LIMITS.parseMemoryMb} MB to read the calendar; ${MAX_STORED_OCCURRENCES} occurrences stored (a larger feed is stored truncated, see \`events_truncated\`). Recurring events are expanded from ${DEFAULT_LIMITS.windowPastDays} days before to ${DEFAULT_LIMITS.windowFutureDays} days after each fetch.`;

const tags = ['calendar'];
const base = '/admin/v1/institutions/:slug/calendar-feeds';

export function adminCalendarRoutes(app: App): void {
  feedRoutes(app);
  feedChangeRoutes(app);
  fetchRoutes(app);
}

/** Adding a feed, listing them, reading one. */
function feedRoutes(app: App): void {
  app.post(
    base,
    institutionRoute('admin', tags, {
      summary: 'Add a calendar feed',
      description:
        'An .ics address the service fetches on a schedule (every `refresh_minutes`, default 60) with conditional requests. ' +
        `The feed is due at once. ${limitsText} ` +
        'An institution has at most 50 feeds unless the operator sets CALENDAR_FEEDS_PER_INSTITUTION: one more answers 409 `calendar_feed_limit_reached` with `max`.',
      body: NewFeedBody,
      response: { 201: Feed, ...errorResponses(400, 401, 404, 409) },
    }),
    async (request, reply) =>
      reply.status(201).send(await feeds.createFeed(request.deps, institutionOf(request).id, request.body)),
  );

  app.get(
    base,
    institutionRoute('admin', tags, {
      summary: 'List calendar feeds, with their health',
      querystring: PageQuery,
      response: { 200: List(Feed), ...errorResponses(400, 401, 404) },
    }),
    async (request) => ({
      items: await feeds.listFeeds(request.deps.db, institutionOf(request).id, page(request.query)),
      ...page(request.query),
    }),
  );

  app.get(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Read a calendar feed',
      params: FeedParams,
      response: { 200: Feed, ...errorResponses(400, 401, 404) },
    }),
    async (request) => feeds.getFeed(request.deps.db, institutionOf(request).id, request.params.id),
  );
}

/** Changing and deleting a feed. */
function feedChangeRoutes(app: App): void {
  app.patch(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Update a calendar feed: url, name, refresh interval, audience',
      description:
        'Fields left out are unchanged; `name: null` clears the name. A new URL starts afresh: its validators and failure run are cleared, ' +
        'a fetch in flight for the old URL is dropped, and the feed is due at once. Stored events stay until the next successful fetch replaces them.',
      params: FeedParams,
      body: FeedChangeBody,
      response: { 200: Feed, ...errorResponses(400, 401, 404) },
    }),
    async (request) =>
      feeds.updateFeed(request.deps, institutionOf(request).id, request.params.id, request.body),
  );

  app.delete(
    `${base}/:id`,
    adminRoute('admin', tags, {
      summary: 'Delete a calendar feed, its events and its fetch history',
      params: FeedParams,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) => {
      await feeds.deleteFeed(request.deps.db, institutionOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
}

/** Fetching a feed now, its fetch history, and the stored occurrences of every feed. */
function fetchRoutes(app: App): void {
  app.post(
    `${base}/:id/fetch`,
    adminRoute('admin', tags, {
      summary: 'Fetch a calendar feed now and return the fetch record',
      description:
        'Waits for the fetch (at most the time limit) and answers 200 with its record whatever happened: `status` is ok (events stored), ' +
        'not_modified (304 to the conditional request) or failed (`error` says why; the stored events are unchanged). The next scheduled ' +
        'fetch is counted from now. 409 fetch_in_progress when this feed is being fetched already. ' +
        limitsText,
      params: FeedParams,
      response: { 200: FetchRecord, ...errorResponses(400, 401, 404, 409) },
    }),
    async (request) => fetchFeedNow(request.deps, institutionOf(request).id, request.params.id),
  );

  app.get(
    `${base}/:id/fetches`,
    adminRoute('admin', tags, {
      summary: 'Fetch history of a calendar feed, newest first (the last 200 are kept)',
      params: FeedParams,
      querystring: PageQuery,
      response: { 200: List(FetchRecord), ...errorResponses(400, 401, 404) },
    }),
    async (request) => ({
      items: await feeds.listFetches(
        request.deps.db,
        institutionOf(request).id,
        request.params.id,
        page(request.query),
      ),
      ...page(request.query),
    }),
  );

  app.get(
    '/admin/v1/institutions/:slug/calendar-events',
    institutionRoute('read', tags, {
      summary: 'Occurrences of every calendar feed of the institution in a window',
      description:
        'Occurrences that overlap [from, to), ordered by start. `from` and `to` are dates (midnight UTC) or ISO 8601 date-times with an offset; ' +
        `the window spans at most ${MAX_WINDOW_DAYS} days. All-day events match by their dates taken as UTC days. Cancelled occurrences are listed with status cancelled; ` +
        'occurrences removed by EXDATE are not listed. Recurring events are stored only within the expansion window of the last fetch.',
      querystring: Type.Intersect([
        PageQuery,
        Type.Object({
          from: Type.String({ maxLength: 40, examples: ['2026-09-01'] }),
          to: Type.String({ maxLength: 40, examples: ['2026-10-13'] }),
          feed_id: Type.Optional(Uuid('Only this feed')),
        }),
      ]),
      response: { 200: List(CalendarEvent), ...errorResponses(400, 401, 404) },
    }),
    async (request) => ({
      items: await listEvents(request.deps.db, institutionOf(request).id, {
        ...request.query,
        ...page(request.query),
      }),
      ...page(request.query),
    }),
  );
}
