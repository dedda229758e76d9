// SQL of the OneRoster sources (migration 0030).
import type { Queryable } from '../../../db/db.ts';

export const viewColumns = `id, institution_id, base_url, token_url, client_id, cohort_id, org_ids, mapping,
  pull_every_minutes, full_every_hours, next_pull_at, delta_since, last_full_at, failure_count, last_error,
  last_error_code, failing_since, last_pull_at, last_success_at, created_at, updated_at,
  (lease_until IS NOT NULL AND lease_until > now()) AS pulling, requested_run_id, requested_mode, requested_at`;

export const GET_SQL = `SELECT ${viewColumns} FROM oneroster_sources WHERE institution_id = $1`;

export const UPSERT_SQL = `
INSERT INTO oneroster_sources (institution_id, base_url, token_url, client_id, client_secret_encrypted,
                               cohort_id, org_ids, mapping, pull_every_minutes, full_every_hours, next_pull_at)
-- No secret sent: the stored one is kept (the proposed row must carry it, as NOT NULL is checked
-- before the conflict is; with no stored one either, the caller has refused the request).
VALUES ($1, $2, $3, $4, COALESCE($5, (SELECT client_secret_encrypted FROM oneroster_sources WHERE institution_id = $1)),
        $6, $7::text[], $8::jsonb, $9, $10, $11)
ON CONFLICT (institution_id) DO UPDATE SET
  base_url = EXCLUDED.base_url, token_url = EXCLUDED.token_url, client_id = EXCLUDED.client_id,
  client_secret_encrypted = COALESCE($5, oneroster_sources.client_secret_encrypted),
  cohort_id = EXCLUDED.cohort_id, org_ids = EXCLUDED.org_ids, mapping = EXCLUDED.mapping,
  pull_every_minutes = EXCLUDED.pull_every_minutes, full_every_hours = EXCLUDED.full_every_hours,
  next_pull_at = EXCLUDED.next_pull_at, updated_at = now()`;

export const DELETE_SQL = 'DELETE FROM oneroster_sources WHERE institution_id = $1';

/** What a pull needs: the settings, the sealed secret and the memory, with the lease just taken. */
export const claimedColumns = `id, institution_id, base_url, token_url, client_id, client_secret_encrypted,
  cohort_id, org_ids, mapping, pull_every_minutes, full_every_hours, delta_since, last_full_at, known,
  failure_count, lease_token, requested_run_id, requested_mode`;

/** A source whose cohort is archived is not pulled (docs/archiving.md). */
const cohortActive = (source: string) =>
  `NOT EXISTS (SELECT 1 FROM cohorts c WHERE c.id = ${source}.cohort_id AND c.archived_at IS NOT NULL)`;

/**
 * One institution's source for a pull now; none when a pull of it holds the lease or is queued
 * for the worker, or its cohort is archived (the caller tells which). An archived institution never gets here: its writes are
 * refused by the request context.
 */
export const CLAIM_SQL = `
UPDATE oneroster_sources SET lease_token = gen_random_uuid(), lease_until = $3
WHERE institution_id = $1 AND (lease_until IS NULL OR lease_until <= $2) AND requested_run_id IS NULL
  AND ${cohortActive('oneroster_sources')}
RETURNING ${claimedColumns}`;

/** Why CLAIM_SQL claimed nothing: the source's cohort (none: no source). */
export const SOURCE_COHORT_SQL = `
SELECT c.id, c.name, c.archived_at FROM oneroster_sources s JOIN cohorts c ON c.id = s.cohort_id
WHERE s.institution_id = $1`;

/**
 * Due sources and requested pulls ("Sync now"), for the worker, requested ones first; SKIP
 * LOCKED so any number of workers claim without waiting. An archived institution's source, or
 * one whose cohort is archived, is skipped (and falls due at once when restored: its
 * next_pull_at stays where it was).
 */
export const CLAIM_DUE_SQL = `
WITH due AS (
  SELECT s.id FROM oneroster_sources s
  WHERE (s.next_pull_at <= $1 OR s.requested_at <= $1) AND (s.lease_until IS NULL OR s.lease_until <= $1)
    AND ($4::uuid[] IS NULL OR s.institution_id = ANY ($4::uuid[]))
    AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = s.institution_id AND i.archived_at IS NOT NULL)
    AND ${cohortActive('s')}
  ORDER BY s.requested_at NULLS LAST, s.next_pull_at LIMIT $2
  FOR UPDATE OF s SKIP LOCKED
)
UPDATE oneroster_sources s SET lease_token = gen_random_uuid(), lease_until = $3
FROM due WHERE s.id = due.id
RETURNING ${claimedColumns.replace(/(\w+)/g, 's.$1')}`;

/**
 * A pull's end: the lease released, a requested pull done (none can be asked for while the
 * lease is held), health and schedule moved, the memory kept on success.
 */
export const FINISH_SQL = `
UPDATE oneroster_sources SET
  lease_token = NULL, lease_until = NULL, last_pull_at = $3,
  requested_run_id = NULL, requested_mode = NULL, requested_at = NULL,
  failure_count = CASE WHEN $4 THEN 0 ELSE failure_count + 1 END,
  last_error = CASE WHEN $4 THEN NULL ELSE $5 END,
  last_error_code = CASE WHEN $4 THEN NULL ELSE $10 END,
  failing_since = CASE WHEN $4 THEN NULL ELSE COALESCE(failing_since, $3) END,
  last_success_at = CASE WHEN $4 THEN $3 ELSE last_success_at END,
  delta_since = CASE WHEN $4 THEN $6 ELSE delta_since END,
  last_full_at = CASE WHEN $4 AND $7 THEN $6 ELSE last_full_at END,
  known = CASE WHEN $4 THEN $8::jsonb ELSE known END,
  next_pull_at = $9
WHERE id = $1 AND lease_token = $2`;

/** The source for "Sync now", locked until the request is stored. */
export const REQUEST_LOCK_SQL = `
SELECT s.id, s.delta_since, s.last_full_at, s.full_every_hours, s.requested_run_id,
       (s.lease_until IS NOT NULL AND s.lease_until > $2) AS pulling,
       c.id AS cohort_id, c.name AS cohort_name, c.archived_at AS cohort_archived_at
FROM oneroster_sources s JOIN cohorts c ON c.id = s.cohort_id
WHERE s.institution_id = $1 FOR UPDATE OF s`;

/** "Sync now": the pull asked for, with the run id it will be recorded under. */
export const REQUEST_SQL = `
UPDATE oneroster_sources SET requested_run_id = gen_random_uuid(), requested_mode = $2, requested_at = $3
WHERE id = $1 RETURNING requested_run_id, requested_mode, requested_at`;

/** Sources failing now, across institutions or of one, for the health page. */
export const FAILING_SQL = `
SELECT s.institution_id, i.slug, i.name, s.last_error, s.failing_since, s.failure_count, s.last_success_at
FROM oneroster_sources s JOIN institutions i ON i.id = s.institution_id
WHERE s.failing_since IS NOT NULL AND ($1::uuid IS NULL OR s.institution_id = $1)
ORDER BY s.failing_since`;

/** The pull worker's queue for the metrics: sources due or asked for and not leased, and the oldest's wait. */
export async function selectPullQueue(
  q: Queryable,
  now: Date,
): Promise<{ depth: number; lagSeconds: number }> {
  const { rows } = await q.query<{ depth: number; lag_seconds: number }>(
    `SELECT count(*) AS depth,
            COALESCE(EXTRACT(EPOCH FROM ($1 - min(LEAST(next_pull_at, requested_at)))), 0)::float8 AS lag_seconds
     FROM oneroster_sources
     WHERE (next_pull_at <= $1 OR requested_at <= $1) AND (lease_until IS NULL OR lease_until <= $1)`,
    [now],
  );
  return { depth: rows[0].depth, lagSeconds: rows[0].lag_seconds };
}
