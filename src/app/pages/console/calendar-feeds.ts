// Calendar feeds (admins): the feeds with their state, adding one (the URL guard's refusal next to
// the URL field), a feed's page with its settings, "Fetch now" (the fetch record shown after the
// redirect), its fetch history and its upcoming occurrences, and deleting it (confirmed).
//
// Every page calls the calendar domain's functions with the request's institution, as the admin
// API does (src/app/api/admin/calendar.ts); the forms are checked with the API's own schemas and
// a refusal is shown next to the field it names.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { listEvents } from '../../../domain/calendar/events.ts';
import {
  type CalendarFeed,
  createFeed,
  deleteFeed,
  getFeed,
  listFeeds,
  listFetches,
  updateFeed,
} from '../../../domain/calendar/feeds.ts';
import { fetchFeedNow } from '../../../domain/calendar/fetch-now.ts';
import { FeedChangeBody, NewFeedBody } from '../../../domain/calendar/schemas.ts';
import { listAudienceTags } from '../../../domain/institutions/listings.ts';
import { ApiError } from '../../../errors.ts';
import { uuidPattern } from '../../../lib/ids.ts';
import type { App } from '../../types.ts';
import { checkFormWithUrls } from '../form-check.ts';
import {
  feedFields,
  feedInput,
  feedsView,
  feedValues,
  feedView,
  newFeedInput,
  UPCOMING_DAYS,
} from './calendar-feeds-view.ts';
import { ctx, ItemPageParams, institutionOf, PageParams } from './context.ts';
import { confirmed, refusalOf } from './forms.ts';
import { timesIn } from './institution-time.ts';

export { feedState } from './calendar-feeds-view.ts';
/** A calendar feed as the pages show it (the domain's). */
export type Feed = CalendarFeed;

const listSchema = { hide: true, params: PageParams };
const schema = { hide: true, params: ItemPageParams };
const access = { access: 'admin' as const };

const FIELDS = Object.keys(feedFields);
/** The longest lists the pages show: feeds, audience tags, fetches and upcoming events. */
const MAX_FEEDS = 200;
const MAX_TAGS = 500;
const MAX_ROWS = 50;

type PageData = Record<string, unknown>;

/** A feed form checked with the API's schema, its URL by the outbound guard's rules as well. */
const checkFeedForm = <T extends TSchema>(
  request: FastifyRequest,
  schema: T,
  input: Record<string, unknown>,
  url: unknown,
) => checkFormWithUrls(schema, input, feedFields, { url }, request.deps.policy);

function pages() {
  const paths = (request: FastifyRequest, id?: string) => {
    const page = `/console/${institutionOf(request).slug}/calendar-feeds`;
    return id ? `${page}/${id}` : page;
  };

  /** The audience tags to choose from; a feed's tag that is not among them is still listed. */
  const audienceTags = async (request: FastifyRequest, institutionId: string) =>
    (await listAudienceTags(request.deps.db, institutionId, { limit: MAX_TAGS })).items;

  const feeds = async (request: FastifyRequest, extra: PageData = {}, status = 200) => {
    const { id: institutionId, time_zone } = institutionOf(request);
    const [listed, tags] = await Promise.all([
      listFeeds(request.deps.db, institutionId, { limit: MAX_FEEDS, offset: 0 }),
      audienceTags(request, institutionId),
    ]);
    return ctx(request).render(
      'console/calendar-feeds.eta',
      { ...feedsView(listed, tags, timesIn(time_zone)), ...extra },
      status,
    );
  };

  const feed = async (request: FastifyRequest, id: string, extra: PageData = {}, status = 200) => {
    // A malformed id is a feed that does not exist: the not-found page.
    if (!uuidPattern.test(id)) throw new ApiError('not_found', { detail: 'no such calendar feed' });
    const { id: institutionId, time_zone } = institutionOf(request);
    const now = request.deps.clock.now();
    const to = new Date(now.getTime() + UPCOMING_DAYS * 86_400_000);
    const page = { limit: MAX_ROWS, offset: 0 };
    const [found, fetches, events, tags] = await Promise.all([
      getFeed(request.deps.db, institutionId, id),
      listFetches(request.deps.db, institutionId, id, page),
      listEvents(request.deps.db, institutionId, {
        feed_id: id,
        from: now.toISOString(),
        to: to.toISOString(),
        ...page,
      }),
      audienceTags(request, institutionId),
    ]);
    // "Fetch now" redirects here naming its record, so a reload does not fetch again.
    const shown = (request.query as { fetch?: unknown }).fetch;
    return ctx(request).render(
      'console/calendar-feed.eta',
      { ...feedView(found, fetches, events, tags, shown, timesIn(time_zone)), ...extra },
      status,
    );
  };

  /**
   * Runs a feed's change: on success, to `done(result)`; a refusal is shown on the page `back`
   * draws (next to the field it names, of `fields`; else above the form).
   */
  const act = async <T>(
    reply: FastifyReply,
    run: () => Promise<T>,
    done: (result: T) => string,
    back: (refused: ReturnType<typeof refusalOf>) => Promise<unknown>,
    fields: readonly string[] = FIELDS,
  ) => {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      return back(refusalOf(error, fields));
    }
    return reply.redirect(done(result), 303);
  };

  return { paths, feeds, feed, act };
}

export function calendarFeedRoutes(app: App): void {
  const { paths, feeds, feed, act } = pages();

  app.get('/:slug/calendar-feeds', { config: access, schema: listSchema }, async (request) => feeds(request));

  app.post(
    '/:slug/calendar-feeds',
    {
      config: { ...access, formFields: ['name', 'url', 'refresh_minutes', 'audience_tags'] },
      schema: listSchema,
    },
    async (request, reply) => {
      const values = feedValues(request.body);
      const input = newFeedInput(values);
      const checked = checkFeedForm(request, NewFeedBody, input, values.url);
      if (!checked.ok) return feeds(request, { values, errors: checked.errors }, 400);
      return act(
        reply,
        () => createFeed(request.deps, institutionOf(request).id, checked.value),
        (created) => `${paths(request, created.id)}?done=calendar_feed_added`,
        (refused) => feeds(request, { values, ...refused }, refused.status),
      );
    },
  );

  app.get('/:slug/calendar-feeds/:id', { config: access, schema }, async (request) =>
    feed(request, request.params.id),
  );

  app.post(
    '/:slug/calendar-feeds/:id',
    { config: { ...access, formFields: ['name', 'url', 'refresh_minutes', 'audience_tags'] }, schema },
    async (request, reply) => {
      const { id } = request.params;
      const values = feedValues(request.body);
      const input = feedInput(values);
      const checked = checkFeedForm(request, FeedChangeBody, input, input.url);
      if (!checked.ok) return feed(request, id, { values, errors: checked.errors }, 400);
      return act(
        reply,
        () => updateFeed(request.deps, institutionOf(request).id, id, checked.value),
        () => `${paths(request, id)}?done=calendar_feed_updated`,
        (refused) => feed(request, id, { values, ...refused }, refused.status),
      );
    },
  );

  app.post(
    '/:slug/calendar-feeds/:id/fetch',
    { config: { ...access, formFields: [] }, schema },
    async (request, reply) => {
      const { id } = request.params;
      return act(
        reply,
        () => fetchFeedNow(request.deps, institutionOf(request).id, id),
        (record) => `${paths(request, id)}?fetch=${record.id}`,
        (refused) => feed(request, id, refused, refused.status),
        [],
      );
    },
  );

  app.post(
    '/:slug/calendar-feeds/:id/delete',
    { config: { ...access, formFields: ['confirmed'] }, schema },
    async (request, reply) => {
      const { id } = request.params;
      const page = paths(request, id);
      if (!confirmed(request.body)) {
        // Asking first changes nothing: no audit entry for it.
        request.unchanged = true;
        const found = await getFeed(request.deps.db, institutionOf(request).id, id);
        return ctx(request).render('console/confirm.eta', {
          title: 'Delete this calendar feed?',
          message: `${found.name ?? found.url} is no longer fetched, and its stored events and fetch history are deleted: students stop seeing them.`,
          action: `${page}/delete`,
          button: 'Delete the calendar feed',
          back: page,
        });
      }
      return act(
        reply,
        () => deleteFeed(request.deps.db, institutionOf(request).id, id),
        () => `${paths(request)}?done=calendar_feed_deleted`,
        (refused) => feed(request, id, refused, refused.status),
        [],
      );
    },
  );
}
