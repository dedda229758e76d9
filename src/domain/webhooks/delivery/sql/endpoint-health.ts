// An endpoint's failing run (../state.ts decides): ended by a success, started or extended by a
// failure. Callers pass endpoints in id order, so concurrent recordings lock them in one order.
import type { Queryable } from '../../../../db/db.ts';

/** Ends the failing run of these endpoints (ids sorted). */
export async function clearFailingRuns(tx: Queryable, healthy: string[]): Promise<void> {
  await tx.query(
    `UPDATE webhook_endpoints SET failing_since = NULL, last_failure_at = NULL
     WHERE id = ANY ($1::uuid[]) AND (failing_since IS NOT NULL OR last_failure_at IS NOT NULL)`,
    [healthy],
  );
}

/**
 * Starts or extends the failing run of these enabled endpoints (JSON of `{ id, first_failure,
 * last_failure }`, sorted by id); returns when each run started.
 */
export async function extendFailingRuns(
  tx: Queryable,
  failing: string,
  runGapMs: number,
): Promise<{ id: string; failing_since: Date }[]> {
  const { rows } = await tx.query<{ id: string; failing_since: Date }>(
    // The run restarts when the previous failure is older than FAILING_RUN_GAP_MS: quiet
    // days without events are not failing days.
    `UPDATE webhook_endpoints w SET
       failing_since = CASE
         WHEN w.failing_since IS NULL
           OR f.first_failure - w.last_failure_at > $2::bigint * interval '1 millisecond'
         THEN f.first_failure ELSE w.failing_since END,
       last_failure_at = GREATEST(w.last_failure_at, f.last_failure)
     FROM jsonb_to_recordset($1::jsonb) AS f(id uuid, first_failure timestamptz, last_failure timestamptz)
     WHERE w.id = f.id AND w.enabled
     RETURNING w.id, w.failing_since`,
    [failing, runGapMs],
  );
  return rows;
}
