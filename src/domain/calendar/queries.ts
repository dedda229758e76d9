// The SQL of calendar feeds as admins configure them: a feed, the feeds, adding, changing and
// deleting one, its fetch history, and which audience tags exist. Every statement is keyed by
// institution, so another institution's feed is never read or changed. Below them, a fetch's own
// statements (refresh.ts); the stored occurrences' are in sql/occurrences.ts.
import type { Db, Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';
import { type QueueDepth, selectQueueDepth } from '../../db/queue-depth.ts';
import type { CalendarFeed, ClaimedFeed, FetchRecord, Page } from './model.ts';

/** A feed as it is read: its health worked out from its last fetch and its failure run. */
export const feedColumns = `id, institution_id, url, name, refresh_minutes, audience_tag_ids AS audience_tags,
  CASE WHEN failure_count > 0 THEN 'failing' WHEN last_status IS NULL THEN 'pending' ELSE 'ok' END AS health,
  last_status, last_error, failure_count, failing_since, last_fetch_at, last_success_at, events_truncated,
  next_fetch_at, created_at, updated_at`;

/** A fetch record as it is read. */
export const fetchColumns = `id, feed_id, trigger, started_at, duration_ms, status, http_status, events_added,
  events_updated, events_removed, events_total, events_skipped, events_truncated, error, problems`;

export const selectFeed = (q: Queryable, institutionId: string, id: string) =>
  selectOwnedRow<CalendarFeed>(q, 'calendar_feeds', feedColumns, institutionId, id);

/** Adds a feed, due at `now`. */
/**
 * Adds a feed unless the institution already has `max`; null then. The count and the insert are
 * one statement under a transaction-level advisory lock on the institution's feeds, so two
 * concurrent adds cannot both pass the count.
 */
export async function insertFeed(
  db: Db,
  institutionId: string,
  feed: { url: string; name: string | null; refresh: number; tags: string[]; now: Date; max: number },
): Promise<CalendarFeed | null> {
  return db.transaction(async (tx) => {
    await lockInstitution(tx, institutionId, InstitutionLock.calendarFeeds);
    const { rows } = await tx.query<CalendarFeed>(
      `INSERT INTO calendar_feeds (institution_id, url, name, refresh_minutes, audience_tag_ids, next_fetch_at,
         created_at, updated_at)
       SELECT $1, $2, $3, $4, $5::uuid[], $6, $6, $6
       WHERE (SELECT count(*) FROM calendar_feeds WHERE institution_id = $1) < $7
       RETURNING ${feedColumns}`,
      [institutionId, feed.url, feed.name, feed.refresh, feed.tags, feed.now, feed.max],
    );
    return rows[0] ?? null;
  });
}

export async function selectFeeds(q: Queryable, institutionId: string, page: Page): Promise<CalendarFeed[]> {
  const { rows } = await q.query<CalendarFeed>(
    `SELECT ${feedColumns} FROM calendar_feeds WHERE institution_id = $1
     ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [institutionId, page.limit, page.offset],
  );
  return rows;
}

/**
 * Changes a feed: a null value (an undefined name) leaves its field as it is. A changed URL (not
 * the same one sent again) resets what belonged to the old one: validators, the failure run, a
 * fetch in flight (its lease), and makes the feed due at once.
 */
export async function updateFeedRow(
  q: Queryable,
  institutionId: string,
  id: string,
  change: {
    url: string | null;
    name?: string | null;
    refresh: number | null;
    tags: string[] | null;
    now: Date;
  },
): Promise<CalendarFeed | undefined> {
  const { rows } = await q.query<CalendarFeed>(
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
        in_url: change.url,
        set_name: change.name !== undefined,
        in_name: change.name ?? null,
        in_refresh: change.refresh,
        in_tags: change.tags === null ? null : `{${change.tags.join(',')}}`,
        in_now: change.now,
      }),
    ],
  );
  return rows[0];
}

/** Deletes a feed (its events and fetch history go with it); returns how many rows went (0 or 1). */
export async function deleteFeedRow(q: Queryable, institutionId: string, id: string): Promise<number> {
  const { rowCount } = await q.query('DELETE FROM calendar_feeds WHERE institution_id = $1 AND id = $2', [
    institutionId,
    id,
  ]);
  return rowCount;
}

/** A feed's fetch history, newest first. */
export async function selectFetches(
  q: Queryable,
  institutionId: string,
  id: string,
  page: Page,
): Promise<FetchRecord[]> {
  const { rows } = await q.query<FetchRecord>(
    `SELECT ${fetchColumns} FROM calendar_feed_fetches WHERE institution_id = $1 AND feed_id = $2
     ORDER BY id DESC LIMIT $3 OFFSET $4`,
    [institutionId, id, page.limit, page.offset],
  );
  return rows;
}

/** Which of these audience tag ids are the institution's. */
export async function selectKnownTags(q: Queryable, institutionId: string, ids: string[]): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    'SELECT id FROM audience_tags WHERE institution_id = $1 AND id = ANY ($2::uuid[])',
    [institutionId, ids],
  );
  return rows.map((r) => r.id);
}

/** The fetch worker's queue for the metrics: feeds due now (a claim moves a feed's due time on), and the oldest's wait. */
export function selectFetchQueue(q: Queryable, now: Date): Promise<QueueDepth> {
  return selectQueueDepth(q, 'next_fetch_at', 'FROM calendar_feeds WHERE next_fetch_at <= $1', now);
}

// A fetch (./refresh.ts): claiming feeds, recording the outcome, pruning the history.

const claimedColumns =
  'id, institution_id, url, etag, last_modified, refresh_minutes, failure_count, lease_token';

/** Claims up to `limit` due feeds, round robin by institution (./refresh.ts explains). */
export async function claimDueFeedRows(
  q: Queryable,
  now: Date,
  limit: number,
  leaseUntil: Date,
  institutionIds: string[] | null,
): Promise<ClaimedFeed[]> {
  const { rows } = await q.query<ClaimedFeed>(
    `WITH ranked AS (
       SELECT c.id, c.next_fetch_at,
         row_number() OVER (PARTITION BY c.institution_id ORDER BY c.next_fetch_at, c.id) AS turn
       FROM calendar_feeds c
       WHERE c.next_fetch_at <= $1 AND ($4::uuid[] IS NULL OR c.institution_id = ANY ($4::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = c.institution_id AND i.archived_at IS NOT NULL)
     ), due AS (
       SELECT f.id FROM calendar_feeds f JOIN ranked r ON r.id = f.id
       WHERE f.next_fetch_at <= $1
       ORDER BY r.turn, r.next_fetch_at, r.id LIMIT $2
       FOR UPDATE OF f SKIP LOCKED
     )
     UPDATE calendar_feeds f SET lease_token = gen_random_uuid(), next_fetch_at = $3
     FROM due WHERE f.id = due.id
     RETURNING ${claimedColumns.replace(/(\w+)/g, 'f.$1')}`,
    [now, limit, leaseUntil, institutionIds],
  );
  return rows;
}

/** Claims one feed unless a fetch of it holds an unexpired lease. */
export async function claimFeedRow(
  q: Queryable,
  institutionId: string,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedFeed | undefined> {
  const { rows } = await q.query<ClaimedFeed>(
    `UPDATE calendar_feeds SET lease_token = gen_random_uuid(), next_fetch_at = $4
     WHERE institution_id = $1 AND id = $2 AND (lease_token IS NULL OR next_fetch_at <= $3)
     RETURNING ${claimedColumns}`,
    [institutionId, id, now, leaseUntil],
  );
  return rows[0];
}

/**
 * Ends a fetch's lease and writes its outcome (JSON of `{ next_at, started_at, status, failures,
 * error, etag, last_modified, truncated }`) where the lease still holds; whether it held.
 */
export async function recordFeedOutcome(
  tx: Queryable,
  feed: { id: string; lease_token: string },
  outcome: string,
): Promise<boolean> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE calendar_feeds f SET
       lease_token = NULL, next_fetch_at = x.next_at, last_fetch_at = x.started_at, last_status = x.status,
       failure_count = x.failures, last_error = x.error,
       failing_since = CASE WHEN x.failures = 0 THEN NULL ELSE COALESCE(f.failing_since, x.started_at) END,
       last_success_at = CASE WHEN x.failures = 0 THEN x.started_at ELSE f.last_success_at END,
       etag = CASE WHEN x.status = 'ok' THEN x.etag ELSE f.etag END,
       last_modified = CASE WHEN x.status = 'ok' THEN x.last_modified ELSE f.last_modified END,
       events_truncated = CASE WHEN x.status = 'ok' THEN x.truncated ELSE f.events_truncated END
     FROM json_to_record($3::json) AS x(next_at timestamptz, started_at timestamptz, status text,
       failures integer, error text, etag text, last_modified text, truncated integer)
     WHERE f.id = $1 AND f.lease_token = $2
     RETURNING f.id`,
    [feed.id, feed.lease_token, outcome],
  );
  return rows.length > 0;
}

/** Appends a fetch record (JSON of its columns, named). */
export async function insertFetch(
  tx: Queryable,
  feed: { institution_id: string; id: string },
  record: string,
): Promise<FetchRecord> {
  const { rows } = await tx.query<FetchRecord>(
    `INSERT INTO calendar_feed_fetches (institution_id, feed_id, trigger, started_at, duration_ms, status,
       http_status, events_added, events_updated, events_removed, events_total, events_skipped,
       events_truncated, error, problems)
     SELECT $1, $2, x.trigger, x.started_at, x.duration_ms, x.status, x.http_status, x.added, x.updated,
       x.removed, x.total, x.skipped, x.truncated, x.error, x.problems
     FROM json_to_record($3::json) AS x(trigger text, started_at timestamptz, duration_ms integer, status text,
       http_status integer, added integer, updated integer, removed integer, total integer, skipped integer,
       truncated integer, error text, problems jsonb)
     RETURNING ${fetchColumns}`,
    [feed.institution_id, feed.id, record],
  );
  return rows[0];
}

/** Keeps the feed's newest `keep` fetch records. */
export async function pruneFetches(tx: Queryable, feedId: string, keep: number): Promise<void> {
  await tx.query(
    `DELETE FROM calendar_feed_fetches WHERE feed_id = $1 AND id < (
       SELECT id FROM calendar_feed_fetches WHERE feed_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
    [feedId, keep - 1],
  );
}
