// SQL of the OneRoster sources (migration 0030).

export const viewColumns = `id, institution_id, base_url, token_url, client_id, cohort_id, org_ids, mapping,
  pull_every_minutes, full_every_hours, next_pull_at, delta_since, last_full_at, failure_count, last_error,
  failing_since, last_pull_at, last_success_at, created_at, updated_at,
  (lease_until IS NOT NULL AND lease_until > now()) AS pulling, requested_run_id, requested_mode, requested_at`;

export const GET_SQL = `SELECT ${viewColumns} FROM oneroster_sources WHERE institution_id = $1`;

export const UPSERT_SQL = `
INSERT INTO oneroster_sources (institution_id, base_url, token_url, client_id, client_secret_encrypted,
                               cohort_id, org_ids, mapping, pull_every_minutes, full_every_hours, next_pull_at)
VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8::jsonb, $9, $10, $11)
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

/** One institution's source for a pull now; none when a pull of it holds the lease. */
export const CLAIM_SQL = `
UPDATE oneroster_sources SET lease_token = gen_random_uuid(), lease_until = $3
WHERE institution_id = $1 AND (lease_until IS NULL OR lease_until <= $2)
RETURNING ${claimedColumns}`;

/**
 * Due sources and requested pulls ("Sync now"), for the worker, requested ones first; SKIP
 * LOCKED so any number of workers claim without waiting.
 */
export const CLAIM_DUE_SQL = `
WITH due AS (
  SELECT id FROM oneroster_sources
  WHERE (next_pull_at <= $1 OR requested_at <= $1) AND (lease_until IS NULL OR lease_until <= $1)
    AND ($4::uuid[] IS NULL OR institution_id = ANY ($4::uuid[]))
  ORDER BY requested_at NULLS LAST, next_pull_at LIMIT $2
  FOR UPDATE SKIP LOCKED
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
  failing_since = CASE WHEN $4 THEN NULL ELSE COALESCE(failing_since, $3) END,
  last_success_at = CASE WHEN $4 THEN $3 ELSE last_success_at END,
  delta_since = CASE WHEN $4 THEN $6 ELSE delta_since END,
  last_full_at = CASE WHEN $4 AND $7 THEN $6 ELSE last_full_at END,
  known = CASE WHEN $4 THEN $8::jsonb ELSE known END,
  next_pull_at = $9
WHERE id = $1 AND lease_token = $2`;

/** The source for "Sync now", locked until the request is stored. */
export const REQUEST_LOCK_SQL = `
SELECT id, delta_since, last_full_at, full_every_hours, requested_run_id,
       (lease_until IS NOT NULL AND lease_until > $2) AS pulling
FROM oneroster_sources WHERE institution_id = $1 FOR UPDATE`;

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
