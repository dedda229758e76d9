// An institution's calendar feeds: validation of what an admin enters, and the reads and
// writes of the admin API (feeds, their fetch history, the stored occurrences). Every function
// takes the institution id: a feed of another institution is "not found".

import type { Db, Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { checkOutboundUrl, type OutboundPolicy, type Resolver } from '../../lib/outbound-url.ts';
import { DEFAULT_REFRESH_MINUTES, MAX_REFRESH_MINUTES, MIN_REFRESH_MINUTES } from './schedule.ts';

export interface CalendarFeed {
  id: string;
  institution_id: string;
  url: string;
  name: string | null;
  refresh_minutes: number;
  audience_tags: string[];
  health: 'pending' | 'ok' | 'failing';
  last_status: 'ok' | 'not_modified' | 'failed' | null;
  last_error: string | null;
  failure_count: number;
  failing_since: Date | null;
  last_fetch_at: Date | null;
  last_success_at: Date | null;
  /** Occurrences the last successful fetch left out because the feed is over the cap. */
  events_truncated: number;
  next_fetch_at: Date;
  created_at: Date;
  updated_at: Date;
}

export const feedColumns = `id, institution_id, url, name, refresh_minutes, audience_tag_ids AS audience_tags,
  CASE WHEN failure_count > 0 THEN 'failing' WHEN last_status IS NULL THEN 'pending' ELSE 'ok' END AS health,
  last_status, last_error, failure_count, failing_since, last_fetch_at, last_success_at, events_truncated,
  next_fetch_at, created_at, updated_at`;

export interface FeedInput {
  url?: unknown;
  name?: unknown;
  refresh_minutes?: unknown;
  audience_tags?: unknown;
}

export interface FeedDeps {
  db: Db;
  clock: Clock;
  policy: OutboundPolicy;
  resolve: Resolver;
}

export interface Page {
  limit: number;
  offset: number;
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_AUDIENCE_TAGS = 100;

export function feedNotFound(): never {
  throw new ApiError('not_found', { detail: 'no such calendar feed' });
}

export async function validFeedUrl(deps: FeedDeps, url: unknown): Promise<string> {
  if (typeof url !== 'string' || url.length === 0 || url.length > 2048)
    throw new ApiError('invalid_field', {
      field: 'url',
      detail: 'url must be a string of 1 to 2048 characters',
    });
  // webcal:// is how many calendar pages link their feed; it means https.
  const raw = url.replace(/^webcals?:\/\//i, 'https://');
  const verdict = await checkOutboundUrl(raw, deps.policy, deps.resolve);
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
      detail: `refresh_minutes: a whole number of minutes from ${MIN_REFRESH_MINUTES} to ${MAX_REFRESH_MINUTES}`,
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
      detail: `audience_tags: an array of at most ${MAX_AUDIENCE_TAGS} audience tag ids`,
    });
  const bad = tags.find((t) => typeof t !== 'string' || !uuidPattern.test(t));
  if (bad !== undefined)
    throw new ApiError('invalid_field', {
      field: 'audience_tags',
      detail: `audience_tags: ${JSON.stringify(bad)?.slice(0, 100)} is not an audience tag id`,
    });
  const ids = [...new Set((tags as string[]).map((t) => t.toLowerCase()))].sort();
  if (ids.length === 0) return [];
  const { rows } = await q.query<{ id: string }>(
    'SELECT id FROM audience_tags WHERE institution_id = $1 AND id = ANY ($2::uuid[])',
    [institutionId, ids],
  );
  const known = new Set(rows.map((r) => r.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new ApiError('invalid_field', {
      field: 'audience_tags',
      detail: `audience_tags: no such audience tag in this institution: ${unknown.slice(0, 5).join(', ')}`,
    });
  return ids;
}

export async function getFeed(deps: FeedDeps, institutionId: string, id: string): Promise<CalendarFeed> {
  if (!uuidPattern.test(id)) feedNotFound();
  const { rows } = await deps.db.query<CalendarFeed>(
    `SELECT ${feedColumns} FROM calendar_feeds WHERE institution_id = $1 AND id = $2`,
    [institutionId, id],
  );
  return rows[0] ?? feedNotFound();
}

export async function createFeed(
  deps: FeedDeps,
  institutionId: string,
  input: FeedInput,
): Promise<CalendarFeed> {
  const url = await validFeedUrl(deps, input.url);
  const name = validName(input.name);
  const refresh = validRefresh(input.refresh_minutes);
  const tags = await validAudienceTags(deps.db, institutionId, input.audience_tags);
  const now = deps.clock.now();
  // Due at once: the first fetch is the worker's next round (or an admin's POST .../fetch).
  const { rows } = await deps.db.query<CalendarFeed>(
    `INSERT INTO calendar_feeds (institution_id, url, name, refresh_minutes, audience_tag_ids, next_fetch_at,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::uuid[], $6, $6, $6)
     RETURNING ${feedColumns}`,
    [institutionId, url, name, refresh, tags, now],
  );
  return rows[0];
}

export async function listFeeds(deps: FeedDeps, institutionId: string, page: Page): Promise<CalendarFeed[]> {
  const { rows } = await deps.db.query<CalendarFeed>(
    `SELECT ${feedColumns} FROM calendar_feeds WHERE institution_id = $1
     ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [institutionId, page.limit, page.offset],
  );
  return rows;
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
  await getFeed(deps, institutionId, id);
  const url = input.url === undefined ? null : await validFeedUrl(deps, input.url);
  const name = input.name === undefined ? undefined : validName(input.name);
  const refresh = input.refresh_minutes === undefined ? null : validRefresh(input.refresh_minutes);
  const tags =
    input.audience_tags === undefined
      ? null
      : await validAudienceTags(deps.db, institutionId, input.audience_tags);
  // A changed URL (not the same one sent again) resets what belonged to the old one.
  const { rows } = await deps.db.query<CalendarFeed>(
    `WITH x AS (
       SELECT r.*, r.in_url IS NOT NULL AND r.in_url <> f.url AS new_url
       FROM calendar_feeds f, json_to_record($3::json) AS r(in_url text, set_name boolean, in_name text,
         in_refresh integer, in_tags uuid[], in_now timestamptz)
       WHERE f.institution_id = $1 AND f.id = $2
     )
     UPDATE calendar_feeds SET
       name = CASE WHEN x.set_name THEN x.in_name ELSE name END,
       refresh_minutes = COALESCE(x.in_refresh, refresh_minutes),
       audience_tag_ids = COALESCE(x.in_tags, audience_tag_ids),
       url = COALESCE(x.in_url, url),
       etag = CASE WHEN x.new_url THEN NULL ELSE etag END,
       last_modified = CASE WHEN x.new_url THEN NULL ELSE last_modified END,
       failure_count = CASE WHEN x.new_url THEN 0 ELSE failure_count END,
       failing_since = CASE WHEN x.new_url THEN NULL ELSE failing_since END,
       last_error = CASE WHEN x.new_url THEN NULL ELSE last_error END,
       lease_token = CASE WHEN x.new_url THEN NULL ELSE lease_token END,
       next_fetch_at = CASE WHEN x.new_url THEN x.in_now ELSE next_fetch_at END,
       updated_at = x.in_now
     FROM x
     WHERE institution_id = $1 AND id = $2
     RETURNING ${feedColumns}`,
    [
      institutionId,
      id,
      JSON.stringify({
        in_url: url,
        set_name: name !== undefined,
        in_name: name ?? null,
        in_refresh: refresh,
        in_tags: tags === null ? null : `{${tags.join(',')}}`,
        in_now: deps.clock.now(),
      }),
    ],
  );
  return rows[0] ?? feedNotFound();
}

export async function deleteFeed(deps: FeedDeps, institutionId: string, id: string): Promise<void> {
  if (!uuidPattern.test(id)) feedNotFound();
  const { rowCount } = await deps.db.query(
    'DELETE FROM calendar_feeds WHERE institution_id = $1 AND id = $2',
    [institutionId, id],
  );
  if (rowCount === 0) feedNotFound();
}

export interface FetchRecord {
  id: number;
  feed_id: string;
  trigger: 'schedule' | 'manual';
  started_at: Date;
  duration_ms: number;
  status: 'ok' | 'not_modified' | 'failed';
  http_status: number | null;
  events_added: number;
  events_updated: number;
  events_removed: number;
  events_total: number | null;
  events_skipped: number;
  events_truncated: number;
  error: string | null;
}

export const fetchColumns = `id, feed_id, trigger, started_at, duration_ms, status, http_status, events_added,
  events_updated, events_removed, events_total, events_skipped, events_truncated, error`;

/** A feed's fetch history, newest first. */
export async function listFetches(
  deps: FeedDeps,
  institutionId: string,
  id: string,
  page: Page,
): Promise<FetchRecord[]> {
  await getFeed(deps, institutionId, id);
  const { rows } = await deps.db.query<FetchRecord>(
    `SELECT ${fetchColumns} FROM calendar_feed_fetches WHERE institution_id = $1 AND feed_id = $2
     ORDER BY id DESC LIMIT $3 OFFSET $4`,
    [institutionId, id, page.limit, page.offset],
  );
  return rows;
}
