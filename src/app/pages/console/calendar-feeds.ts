// Calendar feeds (admins): the feeds with their state, adding one (the URL guard's refusal next to
// the URL field), a feed's page with its settings, "Fetch now" (the fetch record shown after the
// redirect), its fetch history and its upcoming occurrences, and deleting it (confirmed). Every
// read and write is the admin API's (src/app/api/admin/calendar.ts).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { FetchRecord as DomainFetchRecord } from '../../../domain/calendar/feeds.ts';
import { MAX_STORED_OCCURRENCES } from '../../../domain/calendar/schedule.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { pageId } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { confirmed, formErrors, list, text, when } from './forms.ts';

const Params = Type.Object({ slug: Type.String() });
const FeedParams = Type.Object({ slug: Type.String(), id: Type.String() });
const listSchema = { hide: true, params: Params };
const schema = { hide: true, params: FeedParams };

export interface Feed {
  id: string;
  url: string;
  name: string | null;
  refresh_minutes: number;
  audience_tags: string[];
  health: 'pending' | 'ok' | 'failing';
  last_status: string | null;
  last_error: string | null;
  failure_count: number;
  failing_since: string | null;
  last_fetch_at: string | null;
  last_success_at: string | null;
  events_truncated: number;
  next_fetch_at: string;
}

/** A fetch record as the API answers it (its time as an ISO string). */
export type FetchRecord = Omit<DomainFetchRecord, 'started_at' | 'trigger'> & {
  trigger: string;
  started_at: string;
};

interface Occurrence {
  uid: string;
  start: string;
  end: string;
  all_day: boolean;
  summary: string | null;
  location: string | null;
  status: string;
}

interface AudienceTag {
  id: string;
  kind: 'program' | 'campus';
  label: string;
}

const FIELDS = ['url', 'name', 'refresh_minutes', 'audience_tags'];
/** How far ahead a feed's page lists occurrences. */
const UPCOMING_DAYS = 60;

/** A feed's state in a few words, as the list, the feed's page and the health page say it. */
export function feedState(feed: Feed): string {
  if (feed.health === 'pending') return 'not fetched yet';
  if (feed.health === 'ok') return `fetched ${when(feed.last_success_at)}${truncation(feed)}`;
  return `failing since ${when(feed.failing_since)}: ${feed.last_error ?? 'no reason given'}; next attempt ${when(feed.next_fetch_at)}`;
}

/** A feed stored truncated says so next to its state (the stored ones are the upcoming ones). */
function truncation(feed: Feed): string {
  if (!feed.events_truncated) return '';
  return `; truncated: ${feed.events_truncated.toLocaleString('en')} occurrences left out (a feed keeps at most ${MAX_STORED_OCCURRENCES.toLocaleString('en')}, the upcoming ones first)`;
}

/** The posted form as typed (shown again on a refusal) and as the API's body. */
function feedForm(body: unknown) {
  const values = {
    url: text(body, 'url'),
    name: text(body, 'name'),
    refresh_minutes: text(body, 'refresh_minutes'),
    audience_tags: list(body, 'audience_tags'),
  };
  // A number that is not one is sent as typed, so the API's own message names the field.
  const minutes = /^\d{1,9}$/.test(values.refresh_minutes)
    ? Number(values.refresh_minutes)
    : values.refresh_minutes || undefined;
  return {
    values,
    body: {
      url: values.url,
      name: values.name || null,
      ...(minutes === undefined ? {} : { refresh_minutes: minutes }),
      audience_tags: values.audience_tags,
    },
  };
}

export function calendarFeedRoutes(app: App, services: Services): void {
  const paths = (request: FastifyRequest, id?: string) => {
    const slug = institutionOf(request).slug;
    const api = `/admin/v1/institutions/${slug}/calendar-feeds`;
    const page = `/console/${slug}/calendar-feeds`;
    return id ? { api: `${api}/${id}`, page: `${page}/${id}`, slug } : { api, page, slug };
  };

  /** The audience tags to choose from; a feed's tag that is not among them is still listed. */
  const audienceTags = async (request: FastifyRequest) => {
    const c = ctx(request);
    const tags = await c.api.get<{ items: AudienceTag[] }>(
      `/admin/v1/institutions/${paths(request).slug}/audience-tags?limit=500`,
    );
    return tags.items;
  };

  const feeds = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const [listing, tags] = await Promise.all([
      c.api.get<{ items: Feed[] }>(`${paths(request).api}?limit=200`),
      audienceTags(request),
    ]);
    const labels = new Map(tags.map((t) => [t.id, `${t.label} (${t.kind})`]));
    return c.render(
      'console/calendar-feeds.eta',
      {
        title: 'Calendar feeds',
        feeds: listing.items.map((f) => ({
          ...f,
          state: feedState(f),
          audience: f.audience_tags.map((id) => labels.get(id) ?? id),
        })),
        tags,
        values: { url: '', name: '', refresh_minutes: '60', audience_tags: [] },
        errors: {},
        when,
        ...extra,
      },
      status,
    );
  };

  const feed = async (
    request: FastifyRequest,
    id: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const c = ctx(request);
    pageId(id, { error: 'not_found', detail: 'no such calendar feed' });
    const { api, slug } = paths(request, id);
    const now = services.clock.now();
    const to = new Date(now.getTime() + UPCOMING_DAYS * 86_400_000);
    const [found, fetches, events, tags] = await Promise.all([
      c.api.get<Feed>(api),
      c.api.get<{ items: FetchRecord[] }>(`${api}/fetches?limit=50`),
      c.api.get<{ items: Occurrence[] }>(
        `/admin/v1/institutions/${slug}/calendar-events?feed_id=${id}&from=${encodeURIComponent(now.toISOString())}&to=${encodeURIComponent(to.toISOString())}&limit=50`,
      ),
      audienceTags(request),
    ]);
    // "Fetch now" redirects here naming its record, so a reload does not fetch again.
    const shown = (request.query as { fetch?: unknown }).fetch;
    const fetched = fetches.items.find((f) => String(f.id) === shown);
    return c.render(
      'console/calendar-feed.eta',
      {
        title: `Calendar feed ${found.name ?? found.url}`,
        feed: { ...found, state: feedState(found) },
        fetched,
        fetches: fetches.items,
        events: events.items,
        upcomingDays: UPCOMING_DAYS,
        tags,
        values: {
          url: found.url,
          name: found.name ?? '',
          refresh_minutes: String(found.refresh_minutes),
          audience_tags: found.audience_tags,
        },
        errors: {},
        when,
        ...extra,
      },
      status,
    );
  };

  app.get('/:slug/calendar-feeds', { config: { access: 'admin' }, schema: listSchema }, async (request) =>
    feeds(request),
  );

  app.post(
    '/:slug/calendar-feeds',
    { config: { access: 'admin' }, schema: listSchema },
    async (request, reply) => {
      const c = ctx(request);
      const { values, body } = feedForm(request.body);
      const answer = await c.api.call<Feed>('POST', paths(request).api, body);
      if (!answer.ok) return feeds(request, { values, ...formErrors(answer.problem, FIELDS) }, answer.status);
      return reply.redirect(`${paths(request, answer.body.id).page}?done=calendar_feed_added`, 303);
    },
  );

  app.get('/:slug/calendar-feeds/:id', { config: { access: 'admin' }, schema }, async (request) =>
    feed(request, request.params.id),
  );

  app.post('/:slug/calendar-feeds/:id', { config: { access: 'admin' }, schema }, async (request, reply) => {
    const c = ctx(request);
    const { api, page } = paths(request, request.params.id);
    const { values, body } = feedForm(request.body);
    const answer = await c.api.call('PATCH', api, body);
    if (!answer.ok)
      return feed(
        request,
        request.params.id,
        { values, ...formErrors(answer.problem, FIELDS) },
        answer.status,
      );
    return reply.redirect(`${page}?done=calendar_feed_updated`, 303);
  });

  app.post(
    '/:slug/calendar-feeds/:id/fetch',
    { config: { access: 'admin' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      const answer = await c.api.call<FetchRecord>('POST', `${api}/fetch`, {});
      if (!answer.ok) return feed(request, request.params.id, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${page}?fetch=${answer.body.id}`, 303);
    },
  );

  app.post(
    '/:slug/calendar-feeds/:id/delete',
    { config: { access: 'admin' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request, request.params.id);
      if (!confirmed(request.body)) {
        const found = await c.api.get<Feed>(api);
        return c.render('console/confirm.eta', {
          title: 'Delete this calendar feed?',
          message: `${found.name ?? found.url} is no longer fetched, and its stored events and fetch history are deleted: students stop seeing them.`,
          action: `${page}/delete`,
          button: 'Delete the calendar feed',
          back: page,
        });
      }
      const answer = await c.api.call('DELETE', api);
      if (!answer.ok) return feed(request, request.params.id, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${paths(request).page}?done=calendar_feed_deleted`, 303);
    },
  );
}
