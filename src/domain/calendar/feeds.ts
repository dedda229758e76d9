// An institution's calendar feeds: validation of what an admin enters, and the reads and
// writes of the admin API and the console (feeds, their fetch history), their SQL in queries.ts.
// Every function takes the institution id: a feed of another institution is "not found".

import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { checkOutboundUrl } from '../../lib/outbound-url.ts';
import type { Deps } from '../deps.ts';
import type { CalendarFeed, FetchRecord, Page } from './model.ts';
import {
  deleteFeedRow,
  insertFeed,
  selectFeed,
  selectFeeds,
  selectFetches,
  selectKnownTags,
  updateFeedRow,
} from './queries.ts';

export { feedColumns, fetchColumns } from './queries.ts';
export type { CalendarFeed, FetchRecord, Page };

import { DEFAULT_REFRESH_MINUTES, MAX_REFRESH_MINUTES, MIN_REFRESH_MINUTES } from './schedule.ts';

export interface FeedInput {
  url?: unknown;
  name?: unknown;
  refresh_minutes?: unknown;
  audience_tags?: unknown;
}

/** What adding or changing a feed needs: its URL is checked against the outbound policy. */
export type FeedDeps = Pick<Deps, 'db' | 'clock' | 'policy'>;

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_AUDIENCE_TAGS = 100;

export function feedNotFound(): never {
  throw new ApiError('not_found', { detail: 'no such calendar feed' });
}

export async function validFeedUrl(deps: Pick<Deps, 'policy'>, url: unknown): Promise<string> {
  if (typeof url !== 'string' || url.length === 0 || url.length > 2048)
    throw new ApiError('invalid_field', {
      field: 'url',
      detail: 'url must be a string of 1 to 2048 characters',
    });
  // webcal:// is how many calendar pages link their feed; it means https.
  const raw = url.replace(/^webcals?:\/\//i, 'https://');
  const verdict = await checkOutboundUrl(raw, deps.policy);
  if (!verdict.ok) throw new ApiError('url_not_allowed', { field: 'url', detail: verdict.reason });
  return verdict.url.toString();
}

export function validName(name: unknown): string | null {
  if (name === undefined || name === null) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot be stored
  if (typeof name !== 'string' || name.length > 200 || /\u0000/.test(name) || !name.isWellFormed())
    throw new ApiError('invalid_field', { field: 'name', detail: 'name: text of at most 200 characters' });
  return name.trim() === '' ? null : name;
}

export function validRefresh(minutes: unknown): number {
  if (minutes === undefined || minutes === null) return DEFAULT_REFRESH_MINUTES;
  if (
    typeof minutes !== 'number' ||
    !Number.isInteger(minutes) ||
    minutes < MIN_REFRESH_MINUTES ||
    minutes > MAX_REFRESH_MINUTES
  )
    throw new ApiError('invalid_field', {
      field: 'refresh_minutes',
      detail: `The refresh interval is a whole number of minutes from ${MIN_REFRESH_MINUTES} to ${MAX_REFRESH_MINUTES}`,
    });
  return minutes;
}

/** Audience tag ids, each an existing tag (program or campus) of this institution. */
export async function validAudienceTags(
  q: Queryable,
  institutionId: string,
  tags: unknown,
): Promise<string[]> {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags) || tags.length > MAX_AUDIENCE_TAGS)
    throw new ApiError('invalid_field', {
      field: 'audience_tags',
      detail: `The audience is a list of at most ${MAX_AUDIENCE_TAGS} audience tag ids`,
    });
  const bad = tags.find((t) => typeof t !== 'string' || !uuidPattern.test(t));
  if (bad !== undefined)
    throw new ApiError('invalid_field', {
      field: 'audience_tags',
      detail: `The audience holds ${JSON.stringify(bad)?.slice(0, 100)}, which is not an audience tag id`,
    });
  const ids = [...new Set((tags as string[]).map((t) => t.toLowerCase()))].sort();
  if (ids.length === 0) return [];
  const known = new Set(await selectKnownTags(q, institutionId, ids));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new ApiError('invalid_field', {
      field: 'audience_tags',
      detail: `The audience names tags this institution does not have: ${unknown.slice(0, 5).join(', ')}`,
    });
  return ids;
}

export async function getFeed(db: Queryable, institutionId: string, id: string): Promise<CalendarFeed> {
  if (!uuidPattern.test(id)) feedNotFound();
  return (await selectFeed(db, institutionId, id)) ?? feedNotFound();
}

/**
 * Adds a feed, due at once. An institution has at most CALENDAR_FEEDS_PER_INSTITUTION (50 unless
 * the operator sets it): a university's term dates, exams, departments and societies fit many
 * times over, and the cap bounds what one tenant's feeds can ask of the shared fetch worker and
 * parse slots.
 */
export async function createFeed(
  deps: FeedDeps & Pick<Deps, 'config'>,
  institutionId: string,
  input: FeedInput,
): Promise<CalendarFeed> {
  const url = await validFeedUrl(deps, input.url);
  const name = validName(input.name);
  const refresh = validRefresh(input.refresh_minutes);
  const tags = await validAudienceTags(deps.db, institutionId, input.audience_tags);
  // Due at once: the first fetch is the worker's next round (or an admin's POST .../fetch).
  const max = deps.config.calendarFeedsPerInstitution;
  const feed = await insertFeed(deps.db, institutionId, {
    url,
    name,
    refresh,
    tags,
    now: deps.clock.now(),
    max,
  });
  if (!feed)
    throw new ApiError('calendar_feed_limit_reached', {
      max,
      detail: `an institution may have at most ${max} calendar feeds; delete one to add another`,
    });
  return feed;
}

export async function listFeeds(db: Queryable, institutionId: string, page: Page): Promise<CalendarFeed[]> {
  return selectFeeds(db, institutionId, page);
}

/**
 * Fields left out are unchanged. A new URL starts afresh: validators and the failure run are
 * cleared, a fetch in flight for the old URL is disowned (its result is dropped), and the feed
 * is due at once. A new refresh interval applies from the next fetch.
 */
export async function updateFeed(
  deps: FeedDeps,
  institutionId: string,
  id: string,
  input: FeedInput,
): Promise<CalendarFeed> {
  await getFeed(deps.db, institutionId, id);
  const url = input.url === undefined ? null : await validFeedUrl(deps, input.url);
  const name = input.name === undefined ? undefined : validName(input.name);
  const refresh = input.refresh_minutes === undefined ? null : validRefresh(input.refresh_minutes);
  const tags =
    input.audience_tags === undefined
      ? null
      : await validAudienceTags(deps.db, institutionId, input.audience_tags);
  const updated = await updateFeedRow(deps.db, institutionId, id, {
    url,
    name,
    refresh,
    tags,
    now: deps.clock.now(),
  });
  return updated ?? feedNotFound();
}

export async function deleteFeed(db: Queryable, institutionId: string, id: string): Promise<void> {
  if (!uuidPattern.test(id)) feedNotFound();
  if ((await deleteFeedRow(db, institutionId, id)) === 0) feedNotFound();
}

/** A feed's fetch history, newest first. */
export async function listFetches(
  db: Queryable,
  institutionId: string,
  id: string,
  page: Page,
): Promise<FetchRecord[]> {
  await getFeed(db, institutionId, id);
  return selectFetches(db, institutionId, id, page);
}
