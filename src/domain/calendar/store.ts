// Writes a feed's occurrences to match a fresh parse, set-based: one query loads the stored
// keys and content hashes, then one INSERT, one UPDATE and one DELETE (each from a JSON
// record set or an id array) whatever the number of events. Runs inside the caller's
// transaction, so a fetch that fails later leaves the stored events as they were.

import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import type { Occurrence } from './expand.ts';

export interface StoreCounts {
  added: number;
  updated: number;
  removed: number;
  total: number;
}

function contentHash(o: Occurrence): string {
  return createHash('sha256')
    .update(JSON.stringify([o.start, o.end, o.all_day, o.summary, o.location, o.description, o.status]))
    .digest('base64url');
}

const keyOf = (uid: string, recurrenceId: string) => `${uid}\u0000${recurrenceId}`;

export async function storeOccurrences(
  tx: Queryable,
  institutionId: string,
  feedId: string,
  occurrences: Occurrence[],
  now: Date,
): Promise<StoreCounts> {
  // The same key twice in one feed (a duplicated VEVENT): the last one wins.
  const wanted = new Map<string, Occurrence & { hash: string }>();
  for (const o of occurrences) wanted.set(keyOf(o.uid, o.recurrence_id), { ...o, hash: contentHash(o) });

  const { rows: existing } = await tx.query<{
    id: number;
    uid: string;
    recurrence_id: string;
    content_hash: string;
  }>(
    'SELECT id, uid, recurrence_id, content_hash FROM calendar_events WHERE institution_id = $1 AND feed_id = $2',
    [institutionId, feedId],
  );
  const inserts: object[] = [];
  const updates: object[] = [];
  const removed: number[] = [];
  const seen = new Set<string>();
  const record = (o: Occurrence & { hash: string }, id?: number) => ({
    id,
    uid: o.uid,
    recurrence_id: o.recurrence_id,
    starts_at: new Date(o.start).toISOString(),
    ends_at: new Date(o.end).toISOString(),
    all_day: o.all_day,
    summary: o.summary,
    location: o.location,
    description: o.description,
    status: o.status,
    content_hash: o.hash,
  });
  for (const row of existing) {
    const key = keyOf(row.uid, row.recurrence_id);
    const o = wanted.get(key);
    if (!o) removed.push(row.id);
    else {
      seen.add(key);
      if (o.hash !== row.content_hash) updates.push(record(o, row.id));
    }
  }
  for (const [key, o] of wanted) if (!seen.has(key)) inserts.push(record(o));

  const columns = `uid text, recurrence_id text, starts_at timestamptz, ends_at timestamptz, all_day boolean,
    summary text, location text, description text, status text, content_hash text`;
  if (removed.length > 0)
    await tx.query('DELETE FROM calendar_events WHERE feed_id = $1 AND id = ANY ($2::bigint[])', [
      feedId,
      removed,
    ]);
  if (updates.length > 0)
    await tx.query(
      `UPDATE calendar_events e SET starts_at = r.starts_at, ends_at = r.ends_at, all_day = r.all_day,
         summary = r.summary, location = r.location, description = r.description, status = r.status,
         content_hash = r.content_hash, updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id bigint, ${columns})
       WHERE e.feed_id = $1 AND e.id = r.id`,
      [feedId, JSON.stringify(updates), now],
    );
  if (inserts.length > 0)
    await tx.query(
      `INSERT INTO calendar_events (institution_id, feed_id, uid, recurrence_id, starts_at, ends_at, all_day,
         summary, location, description, status, content_hash, created_at, updated_at)
       SELECT $1, $2, r.uid, r.recurrence_id, r.starts_at, r.ends_at, r.all_day, r.summary, r.location,
         r.description, r.status, r.content_hash, $4, $4
       FROM jsonb_to_recordset($3::jsonb) AS r(${columns})`,
      [institutionId, feedId, JSON.stringify(inserts), now],
    );
  return { added: inserts.length, updated: updates.length, removed: removed.length, total: wanted.size };
}
