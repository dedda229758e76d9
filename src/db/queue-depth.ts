// The depth of a worker's queue for the metrics (src/workers/metrics.ts), one statement for every
// queue: how many items are due at `now`, and how long the oldest of them has waited.
import type { Queryable } from './db.ts';

export interface QueueDepth {
  depth: number;
  lagSeconds: number;
}

/**
 * `due` is the queue's due-time column; `from` its FROM and WHERE clauses selecting what is due at
 * $1 (written by the caller, so each queue keeps the condition its due index serves).
 */
export async function selectQueueDepth(
  q: Queryable,
  due: string,
  from: string,
  now: Date,
): Promise<QueueDepth> {
  const { rows } = await q.query<{ depth: number; lag_seconds: number }>(
    `SELECT count(*) AS depth, COALESCE(EXTRACT(EPOCH FROM ($1 - min(${due}))), 0)::float8 AS lag_seconds ${from}`,
    [now],
  );
  return { depth: rows[0].depth, lagSeconds: rows[0].lag_seconds };
}
