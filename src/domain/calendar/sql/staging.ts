// The SQL of a fetch's staged writes (migration 0111, ../store.ts): the diff's batches written to
// calendar_event_changes one statement each, outside any transaction, then applied to
// calendar_events by three set-based statements in the fetch's one short transaction. Every
// statement is keyed by the claim's lease token, the applying ones by feed too.
import type { Db, Queryable } from '../../../db/db.ts';

/** The columns of an occurrence in a batch's JSON (as ./occurrences.ts reads them). */
const columns = `uid text, recurrence_id text, starts_at timestamptz, ends_at timestamptz, all_day boolean,
  summary text, location text, description text, status text, content_hash text`;

const fields =
  'uid, recurrence_id, starts_at, ends_at, all_day, summary, location, description, status, content_hash';
const fromRecord = fields
  .split(', ')
  .map((field) => `r.${field}`)
  .join(', ');

export interface Staging {
  feedId: string;
  leaseToken: string;
}

export async function stageDeletes(q: Queryable, staging: Staging, ids: number[]): Promise<void> {
  await q.query(
    `INSERT INTO calendar_event_changes (lease_token, feed_id, kind, event_id)
     SELECT $1, $2, 'delete', id FROM unnest($3::bigint[]) AS id`,
    [staging.leaseToken, staging.feedId, ids],
  );
}

/** Stages updates (JSON of rows with their id) or inserts (JSON of rows). */
export async function stageRows(
  q: Queryable,
  staging: Staging,
  kind: 'update' | 'insert',
  batch: string,
): Promise<void> {
  await q.query(
    `INSERT INTO calendar_event_changes (lease_token, feed_id, kind, event_id, ${fields})
     SELECT $1, $2, $3, r.id, ${fromRecord}
     FROM jsonb_to_recordset($4::jsonb) AS r(id bigint, ${columns})`,
    [staging.leaseToken, staging.feedId, kind, batch],
  );
}

/**
 * Applies a fetch's staged writes to the stored occurrences, inside the caller's transaction:
 * deletes first (a key the new feed lacks), then updates by id, then inserts; each a join on the
 * (lease_token, kind) index. Then every staged row of the feed goes, this fetch's and any left by
 * a fetch that died.
 */
export async function applyStaged(q: Queryable, staging: Staging, institutionId: string, now: Date) {
  const { leaseToken, feedId } = staging;
  await q.query(
    `DELETE FROM calendar_events e USING calendar_event_changes c
     WHERE c.lease_token = $1 AND c.kind = 'delete' AND e.feed_id = $2 AND e.id = c.event_id`,
    [leaseToken, feedId],
  );
  await q.query(
    `UPDATE calendar_events e SET starts_at = c.starts_at, ends_at = c.ends_at, all_day = c.all_day,
       summary = c.summary, location = c.location, description = c.description, status = c.status,
       content_hash = c.content_hash, updated_at = $3
     FROM calendar_event_changes c
     WHERE c.lease_token = $1 AND c.kind = 'update' AND e.feed_id = $2 AND e.id = c.event_id`,
    [leaseToken, feedId, now],
  );
  await q.query(
    `INSERT INTO calendar_events (institution_id, feed_id, ${fields}, created_at, updated_at)
     SELECT $3, $2, ${fields}, $4, $4 FROM calendar_event_changes
     WHERE lease_token = $1 AND kind = 'insert'`,
    [leaseToken, feedId, institutionId, now],
  );
  await q.query('DELETE FROM calendar_event_changes WHERE feed_id = $1', [feedId]);
}

/** Removes a fetch's staged rows (a fetch that failed before applying them). */
export async function dropStaged(q: Queryable, staging: Staging): Promise<void> {
  await q.query('DELETE FROM calendar_event_changes WHERE lease_token = $1', [staging.leaseToken]);
}

/**
 * Embedded PGlite has no autovacuum: every fetch's staged rows, deleted by its apply, would stay
 * in the table and its indexes as dead versions for the next apply to wade through. Vacuumed
 * after each apply there (outside a transaction, one turn; PostgreSQL: autovacuum).
 */
export async function vacuumStaged(db: Db): Promise<void> {
  if (db.kind === 'pglite') await db.exec('VACUUM calendar_event_changes');
}
