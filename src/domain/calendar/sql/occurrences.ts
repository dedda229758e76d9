// The SQL that reads the stored occurrences (a fetch writes them through ./staging.ts): the
// listings (../events.ts, ../for-students.ts) on the (institution_id, starts_at) and (feed_id,
// starts_at) indexes, a fetch's keyset pages of stored keys on the (feed_id, uid, recurrence_id)
// index.
import type { Queryable } from '../../../db/db.ts';
import type { StoredKey } from '../diff.ts';
import type { StoredEvent } from '../model.ts';

export async function countStoredEvents(tx: Queryable, feed: { institution_id: string; id: string }) {
  const { rows } = await tx.query<{ n: number }>(
    'SELECT count(*) AS n FROM calendar_events WHERE institution_id = $1 AND feed_id = $2',
    [feed.institution_id, feed.id],
  );
  return rows[0].n;
}

/** A keyset page of a feed's stored keys, after `after` (from the start without it). */
export async function selectStoredKeys(
  tx: Queryable,
  feedId: string,
  after: StoredKey | undefined,
  limit: number,
): Promise<StoredKey[]> {
  const { rows } = after
    ? await tx.query<StoredKey>(
        `SELECT id, uid, recurrence_id, content_hash FROM calendar_events
         WHERE feed_id = $1 AND (uid, recurrence_id) > ($2, $3)
         ORDER BY uid, recurrence_id LIMIT $4`,
        [feedId, after.uid, after.recurrence_id, limit],
      )
    : await tx.query<StoredKey>(
        `SELECT id, uid, recurrence_id, content_hash FROM calendar_events
         WHERE feed_id = $1 ORDER BY uid, recurrence_id LIMIT $2`,
        [feedId, limit],
      );
  return rows;
}

/** The institution's occurrences in a window, optionally of one feed, in order, a page. */
export async function selectEventsInWindow(
  q: Queryable,
  institutionId: string,
  window: { from: Date; to: Date; feedId: string | null; limit: number; offset: number },
): Promise<StoredEvent[]> {
  const { rows } = await q.query<StoredEvent>(
    `SELECT feed_id, uid, recurrence_id, starts_at, ends_at, all_day, summary, location, description, status
     FROM calendar_events
     WHERE institution_id = $1 AND starts_at < $3 AND (ends_at > $2 OR starts_at >= $2)
       AND ($4::uuid IS NULL OR feed_id = $4)
     ORDER BY starts_at, uid, recurrence_id, feed_id LIMIT $5 OFFSET $6`,
    [institutionId, window.from, window.to, window.feedId, window.limit, window.offset],
  );
  return rows;
}

/** The institution's feeds meant for everyone or for the student's program or campus. */
export async function selectStudentFeedIds(
  q: Queryable,
  student: { institutionId: string; programId: string | null; campusId: string | null },
): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `WITH tags AS (
       SELECT coalesce(array_agg(id), '{}') AS ids FROM audience_tags
       WHERE institution_id = $1
         AND ((kind = 'program' AND source_id = $2::uuid) OR (kind = 'campus' AND source_id = $3::uuid))
     )
     SELECT f.id FROM calendar_feeds f
     WHERE f.institution_id = $1 AND (f.audience_tag_ids = '{}' OR f.audience_tag_ids && (SELECT ids FROM tags))`,
    [student.institutionId, student.programId, student.campusId],
  );
  return rows.map((f) => f.id);
}

/** These feeds' occurrences in a window, scanning starts from `scanFrom` (./for-students.ts explains). */
export async function selectFeedsEventsInWindow(
  q: Queryable,
  institutionId: string,
  feedIds: string[],
  window: { from: Date; to: Date; scanFrom: Date; limit: number },
): Promise<StoredEvent[]> {
  const { rows } = await q.query<StoredEvent>(
    `SELECT e.feed_id, e.uid, e.recurrence_id, e.starts_at, e.ends_at, e.all_day, e.summary, e.location,
            e.description, e.status
     FROM calendar_events e
     WHERE e.feed_id = ANY ($2::uuid[]) AND e.institution_id = $1 AND e.starts_at >= $5 AND e.starts_at < $4
       AND (e.ends_at > $3 OR e.starts_at >= $3)
     ORDER BY e.starts_at, e.uid, e.recurrence_id, e.feed_id
     LIMIT $6`,
    [institutionId, feedIds, window.from, window.to, window.scanFrom, window.limit],
  );
  return rows;
}
