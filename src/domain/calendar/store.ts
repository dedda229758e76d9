// Writes a feed's occurrences to match a fresh parse, inside the caller's transaction (a fetch
// that fails later leaves the stored events as they were). Set-based and in batches: the stored
// keys and content hashes are read a page at a time and handed to the parse worker, which works
// out the diff (diff.ts); its writes come back as batches of rows, each one DELETE, UPDATE or
// INSERT from an id array or a JSON record set. Never a query per row.
//
// Why batches rather than one statement each: the embedded database (PGlite) runs in this
// thread, so a statement over 100,000 rows would hold the event loop for seconds; small
// statements let requests be answered between them. PostgreSQL runs them on its server, so its
// batches are larger (fewer round trips).

import type { Db, Queryable } from '../../db/db.ts';
import type { DiffCounts, StoredKey, WriteBatch } from './diff.ts';

/** The diff's side of storing: the parse job (parse-job.ts), or anything shaped like it. */
export interface DiffSource {
  sendStored(rows: StoredKey[]): void;
  writes(batchRows: number): AsyncGenerator<WriteBatch, DiffCounts>;
}

/** Rows per statement, and stored keys read per page. */
export function batchSizes(kind: Db['kind']): { write: number; read: number } {
  return kind === 'pglite' ? { write: 500, read: 2_000 } : { write: 5_000, read: 10_000 };
}

const columns = `uid text, recurrence_id text, starts_at timestamptz, ends_at timestamptz, all_day boolean,
  summary text, location text, description text, status text, content_hash text`;

export async function storeOccurrences(
  tx: Queryable,
  institutionId: string,
  feedId: string,
  source: DiffSource,
  now: Date,
  sizes: { write: number; read: number },
): Promise<DiffCounts> {
  // Keyset pages on the (feed_id, uid, recurrence_id) index.
  let after: StoredKey | undefined;
  for (;;) {
    const { rows } = after
      ? await tx.query<StoredKey>(
          `SELECT id, uid, recurrence_id, content_hash FROM calendar_events
           WHERE feed_id = $1 AND (uid, recurrence_id) > ($2, $3)
           ORDER BY uid, recurrence_id LIMIT $4`,
          [feedId, after.uid, after.recurrence_id, sizes.read],
        )
      : await tx.query<StoredKey>(
          `SELECT id, uid, recurrence_id, content_hash FROM calendar_events
           WHERE feed_id = $1 ORDER BY uid, recurrence_id LIMIT $2`,
          [feedId, sizes.read],
        );
    if (rows.length > 0) source.sendStored(rows);
    if (rows.length < sizes.read) break;
    after = rows[rows.length - 1];
  }

  const writes = source.writes(sizes.write);
  for (;;) {
    const next = await writes.next();
    if (next.done) return next.value;
    await write(tx, institutionId, feedId, next.value, now);
  }
}

async function write(tx: Queryable, institutionId: string, feedId: string, batch: WriteBatch, now: Date) {
  if (batch.kind === 'delete')
    await tx.query('DELETE FROM calendar_events WHERE feed_id = $1 AND id = ANY ($2::bigint[])', [
      feedId,
      batch.ids,
    ]);
  else if (batch.kind === 'update')
    await tx.query(
      `UPDATE calendar_events e SET starts_at = r.starts_at, ends_at = r.ends_at, all_day = r.all_day,
         summary = r.summary, location = r.location, description = r.description, status = r.status,
         content_hash = r.content_hash, updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id bigint, ${columns})
       WHERE e.feed_id = $1 AND e.id = r.id`,
      [feedId, batch.json, now],
    );
  else
    await tx.query(
      `INSERT INTO calendar_events (institution_id, feed_id, uid, recurrence_id, starts_at, ends_at, all_day,
         summary, location, description, status, content_hash, created_at, updated_at)
       SELECT $1, $2, r.uid, r.recurrence_id, r.starts_at, r.ends_at, r.all_day, r.summary, r.location,
         r.description, r.status, r.content_hash, $4, $4
       FROM jsonb_to_recordset($3::jsonb) AS r(${columns})`,
      [institutionId, feedId, batch.json, now],
    );
}
