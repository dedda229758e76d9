// What the calendar feed pages show, built from the calendar domain's own types by pure
// functions: a feed's state in a few words, the feeds with their audiences named, a feed's page
// with the record of a fetch just made, and the feed form's values as typed and as the domain
// takes them.
import type { CalendarEventOut } from '../../../domain/calendar/events.ts';
import type { CalendarFeed, FetchRecord } from '../../../domain/calendar/feeds.ts';
import { MAX_STORED_OCCURRENCES } from '../../../domain/calendar/schedule.ts';
import type { AudienceTagListing } from '../../../domain/institutions/schemas.ts';
import { list, text, when } from './forms.ts';

/** How far ahead a feed's page lists occurrences. */
export const UPCOMING_DAYS = 60;

/** What a feed's state is said from (its times as Dates, or as ISO text). */
type FeedHealth = Pick<CalendarFeed, 'health' | 'last_error' | 'events_truncated'> & {
  last_success_at: Date | string | null;
  failing_since: Date | string | null;
  next_fetch_at: Date | string;
};

type Time = (value: unknown) => string;

/**
 * A feed's state in a few words, as the list, the feed's page and the health page say it, its
 * times written by `time` (the institution's zone on the console).
 */
export function feedState(feed: FeedHealth, time: Time = when): string {
  if (feed.health === 'pending') return 'not fetched yet';
  if (feed.health === 'ok') return `fetched ${time(feed.last_success_at)}${truncation(feed)}`;
  return `failing since ${time(feed.failing_since)}: ${feed.last_error ?? 'no reason given'}; next attempt ${time(feed.next_fetch_at)}`;
}

/** A feed stored truncated says so next to its state (the stored ones are the upcoming ones). */
function truncation(feed: FeedHealth): string {
  if (!feed.events_truncated) return '';
  return `; truncated: ${feed.events_truncated.toLocaleString('en')} occurrences left out (a feed keeps at most ${MAX_STORED_OCCURRENCES.toLocaleString('en')}, the upcoming ones first)`;
}

/** The feed form's values as typed (shown again with the form when refused). */
export interface FeedValues {
  url: string;
  name: string;
  refresh_minutes: string;
  audience_tags: string[];
}

export function feedValues(form: unknown): FeedValues {
  return {
    url: text(form, 'url'),
    name: text(form, 'name'),
    refresh_minutes: text(form, 'refresh_minutes'),
    audience_tags: list(form, 'audience_tags'),
  };
}

/**
 * What the form asks the domain for: an empty name is none, empty minutes are left out (the
 * default, or unchanged), and minutes that are not a number are passed as typed so the check
 * names the field.
 */
export function feedInput(values: FeedValues) {
  const minutes = /^\d{1,9}$/.test(values.refresh_minutes)
    ? Number(values.refresh_minutes)
    : values.refresh_minutes || undefined;
  return {
    url: values.url,
    name: values.name || null,
    ...(minutes === undefined ? {} : { refresh_minutes: minutes }),
    audience_tags: values.audience_tags,
  };
}

/**
 * The add form's input: an empty address is left out, so the schema check names it with the
 * other fields' problems (the edit form's stays in: there an absent address means unchanged).
 */
export function newFeedInput(values: FeedValues) {
  const { url, ...rest } = feedInput(values);
  return url ? { url, ...rest } : rest;
}

/** How the feed form labels its fields. */
export const feedFields = {
  url: { label: 'Calendar address (.ics)', required: 'Enter the calendar address' },
  name: { label: 'Name' },
  refresh_minutes: {
    label: 'Minutes between fetches',
    hint: 'Minutes between fetches must be a whole number',
  },
  audience_tags: { label: 'Audience', hint: 'Choose among the programs and campuses listed' },
};

const emptyForm: FeedValues = { url: '', name: '', refresh_minutes: '60', audience_tags: [] };

/** The feeds page: each feed with its state and audience by name, and the add form. */
export function feedsView(
  feeds: readonly CalendarFeed[],
  tags: readonly AudienceTagListing[],
  time: Time = when,
) {
  const labels = new Map(tags.map((t) => [t.id, `${t.label} (${t.kind})`]));
  return {
    title: 'Calendar feeds',
    feeds: feeds.map((f) => ({
      ...f,
      state: feedState(f, time),
      audience: f.audience_tags.map((id) => labels.get(id) ?? id),
    })),
    tags,
    values: emptyForm,
    errors: {} as Record<string, string>,
    when,
  };
}

/** A feed's page: its state, settings, upcoming events and fetch history; `shown` names a fetch just made. */
export function feedView(
  feed: CalendarFeed,
  fetches: readonly FetchRecord[],
  events: readonly CalendarEventOut[],
  tags: readonly AudienceTagListing[],
  shown?: unknown,
  time: Time = when,
) {
  return {
    title: `Calendar feed ${feed.name ?? feed.url}`,
    feed: { ...feed, state: feedState(feed, time) },
    fetched: fetches.find((f) => String(f.id) === shown),
    // The stored events come from the last successful fetch: its problems are the ones that stand.
    problems: fetches.find((f) => f.status === 'ok'),
    fetches,
    events,
    upcomingDays: UPCOMING_DAYS,
    tags,
    values: {
      url: feed.url,
      name: feed.name ?? '',
      refresh_minutes: String(feed.refresh_minutes),
      audience_tags: feed.audience_tags,
    } as FeedValues,
    errors: {} as Record<string, string>,
    when,
  };
}
