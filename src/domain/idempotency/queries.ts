// The idempotency keys' SQL (./keys.ts holds the rules).
import type { Queryable } from '../../db/db.ts';

/**
 * Claims a key: a new row, or an existing one taken over when it was created before
 * `expiredBefore`, or is unanswered and was created before `abandonedBefore`. Whether it was claimed.
 */
export async function insertOrReclaimKey(
  db: Queryable,
  key: { caller: string; key: string; hash: string },
  now: Date,
  expiredBefore: Date,
  abandonedBefore: Date,
): Promise<boolean> {
  const { rows } = await db.query<{ claimed: boolean }>(
    `INSERT INTO idempotency_keys (caller, key, request_hash, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (caller, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, status = NULL, response = NULL, created_at = EXCLUDED.created_at
       WHERE idempotency_keys.created_at < $5
          OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $6)
     RETURNING true AS claimed`,
    [key.caller, key.key, key.hash, now, expiredBefore, abandonedBefore],
  );
  return rows.length > 0;
}

export interface KeyRow {
  request_hash: string;
  status: number | null;
  response: string | null;
}

export async function selectKey(db: Queryable, caller: string, key: string): Promise<KeyRow | undefined> {
  const { rows } = await db.query<KeyRow>(
    'SELECT request_hash, status, response FROM idempotency_keys WHERE caller = $1 AND key = $2',
    [caller, key],
  );
  return rows[0];
}

export async function deleteKey(db: Queryable, caller: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2', [caller, key]);
}

/** Stores a key's answer (`response` sealed). */
export async function storeAnswer(
  db: Queryable,
  caller: string,
  key: string,
  status: number,
  response: string,
): Promise<void> {
  await db.query('UPDATE idempotency_keys SET status = $3, response = $4 WHERE caller = $1 AND key = $2', [
    caller,
    key,
    status,
    response,
  ]);
}

export async function deleteUnansweredKey(db: Queryable, caller: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND status IS NULL', [
    caller,
    key,
  ]);
}

/** Deletes at most `limit` keys created before `cutoff`; how many. */
export async function deleteExpiredKeys(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM idempotency_keys WHERE (caller, key) IN (
         SELECT caller, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2)
       RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [cutoff, limit],
  );
  return rows[0]?.n ?? 0;
}
