// SQL of the OneRoster sources (migration 0030) and their pulls: the settings, the lease a pull
// holds, "Sync now" requests, and the health page's failing sources. Every function takes the
// transaction or database it runs on.
import type { Queryable } from '../../../db/db.ts';
import type {
  ClaimedSource,
  FailingSource,
  PullFinish,
  PullMode,
  RequestableSource,
  RequestedPull,
  SourceCohort,
  SourceRow,
  SourceWrite,
} from './model.ts';

const viewColumns = `id, institution_id, base_url, token_url, client_id, cohort_id, org_ids, mapping,
  pull_every_minutes, full_every_hours, next_pull_at, delta_since, last_full_at, failure_count, last_error,
  last_error_code, failing_since, last_pull_at, last_success_at, created_at, updated_at,
  (lease_until IS NOT NULL AND lease_until > now()) AS pulling, requested_run_id, requested_mode, requested_at`;

const GET_SQL = `SELECT ${viewColumns} FROM oneroster_sources WHERE institution_id = $1`;

const UPSERT_SQL = `
INSERT INTO oneroster_sources (institution_id, base_url, token_url, client_id, client_secret_encrypted,
                               cohort_id, org_ids, mapping, pull_every_minutes, full_every_hours, next_pull_at)
-- No secret sent: the stored one is kept (the proposed row must carry it, as NOT NULL is checked
-- before the conflict is; with no stored one either, the caller has refused the request).
SELECT r."institutionId", r."baseUrl", r."tokenUrl", r."clientId",
       COALESCE(r."clientSecretEncrypted",
                (SELECT client_secret_encrypted FROM oneroster_sources WHERE institution_id = r."institutionId")),
       r."cohortId", r."orgIds", r.mapping, r."pullEveryMinutes", r."fullEveryHours", r."nextPullAt"
FROM json_to_record($1::json) AS r("institutionId" uuid, "baseUrl" text, "tokenUrl" text, "clientId" text,
  "clientSecretEncrypted" text, "cohortId" uuid, "orgIds" text[], mapping jsonb, "pullEveryMinutes" integer,
  "fullEveryHours" integer, "nextPullAt" timestamptz)
ON CONFLICT (institution_id) DO UPDATE SET
  base_url = EXCLUDED.base_url, token_url = EXCLUDED.token_url, client_id = EXCLUDED.client_id,
  client_secret_encrypted = EXCLUDED.client_secret_encrypted,
  cohort_id = EXCLUDED.cohort_id, org_ids = EXCLUDED.org_ids, mapping = EXCLUDED.mapping,
  pull_every_minutes = EXCLUDED.pull_every_minutes, full_every_hours = EXCLUDED.full_every_hours,
  next_pull_at = EXCLUDED.next_pull_at, updated_at = now()`;

const DELETE_SQL = 'DELETE FROM oneroster_sources WHERE institution_id = $1';

/** What a pull needs: the settings, the sealed secret and the memory, with the lease just taken. */
const claimedColumns = `id, institution_id, base_url, token_url, client_id, client_secret_encrypted,
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
const CLAIM_SQL = `
UPDATE oneroster_sources SET lease_token = gen_random_uuid(), lease_until = $3
WHERE institution_id = $1 AND (lease_until IS NULL OR lease_until <= $2) AND requested_run_id IS NULL
  AND ${cohortActive('oneroster_sources')}
RETURNING ${claimedColumns}`;

/** Why CLAIM_SQL claimed nothing: the source's cohort (none: no source). */
const SOURCE_COHORT_SQL = `
SELECT c.id, c.name, c.archived_at FROM oneroster_sources s JOIN cohorts c ON c.id = s.cohort_id
WHERE s.institution_id = $1`;

/**
 * Due sources and requested pulls ("Sync now"), for the worker, requested ones first; SKIP
 * LOCKED so any number of workers claim without waiting. An archived institution's source, or
 * one whose cohort is archived, is skipped (and falls due at once when restored: its
 * next_pull_at stays where it was).
 */
const CLAIM_DUE_SQL = `
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
const FINISH_SQL = `
UPDATE oneroster_sources SET
  lease_token = NULL, lease_until = NULL, last_pull_at = r."finishedAt",
  requested_run_id = NULL, requested_mode = NULL, requested_at = NULL,
  failure_count = CASE WHEN r.ok THEN 0 ELSE failure_count + 1 END,
  last_error = CASE WHEN r.ok THEN NULL ELSE r.error END,
  last_error_code = CASE WHEN r.ok THEN NULL ELSE r."errorCode" END,
  failing_since = CASE WHEN r.ok THEN NULL ELSE COALESCE(failing_since, r."finishedAt") END,
  last_success_at = CASE WHEN r.ok THEN r."finishedAt" ELSE last_success_at END,
  delta_since = CASE WHEN r.ok THEN r."startedAt" ELSE delta_since END,
  last_full_at = CASE WHEN r.ok AND r."full" THEN r."startedAt" ELSE last_full_at END,
  -- The memory lives in oneroster_memory now (migration 0071); the column stays empty.
  known = CASE WHEN r.ok THEN '{}'::jsonb ELSE known END,
  next_pull_at = r."nextPullAt"
FROM json_to_record($1::json) AS r("sourceId" uuid, "leaseToken" uuid, "finishedAt" timestamptz, ok boolean,
  error text, "errorCode" text, "startedAt" timestamptz, "full" boolean, "nextPullAt" timestamptz)
WHERE id = r."sourceId" AND lease_token = r."leaseToken"`;

/** The source for "Sync now", locked until the request is stored. */
const REQUEST_LOCK_SQL = `
SELECT s.id, s.delta_since, s.last_full_at, s.full_every_hours, s.requested_run_id,
       (s.lease_until IS NOT NULL AND s.lease_until > $2) AS pulling,
       c.id AS cohort_id, c.name AS cohort_name, c.archived_at AS cohort_archived_at
FROM oneroster_sources s JOIN cohorts c ON c.id = s.cohort_id
WHERE s.institution_id = $1 FOR UPDATE OF s`;

/** "Sync now": the pull asked for, with the run id it will be recorded under. */
const REQUEST_SQL = `
UPDATE oneroster_sources SET requested_run_id = gen_random_uuid(), requested_mode = $2, requested_at = $3
WHERE id = $1 RETURNING requested_run_id, requested_mode, requested_at`;

/** Sources failing now, across institutions or of one, for the health page. */
const FAILING_SQL = `
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

/** The institution's source, or undefined when none is configured. */
export async function selectSource(q: Queryable, institutionId: string): Promise<SourceRow | undefined> {
  const { rows } = await q.query<SourceRow>(GET_SQL, [institutionId]);
  return rows[0];
}

/** Creates or replaces the institution's source (a null secret keeps the stored one). */
export async function upsertSource(q: Queryable, source: SourceWrite): Promise<void> {
  await q.query(UPSERT_SQL, [JSON.stringify(source)]);
}

/** Removes the institution's source; false when it had none. */
export async function deleteSource(q: Queryable, institutionId: string): Promise<boolean> {
  const { rowCount } = await q.query(DELETE_SQL, [institutionId]);
  return Boolean(rowCount);
}

/** Sources failing now (all institutions', or one's), oldest failure first. */
export async function selectFailingSources(q: Queryable, institutionId?: string): Promise<FailingSource[]> {
  const { rows } = await q.query<FailingSource>(FAILING_SQL, [institutionId ?? null]);
  return rows;
}

/** The institution's source leased for a pull now, until `leaseUntil`; undefined when it cannot be (CLAIM_SQL). */
export async function claimInstitutionSource(
  q: Queryable,
  institutionId: string,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedSource | undefined> {
  const { rows } = await q.query<ClaimedSource>(CLAIM_SQL, [institutionId, now, leaseUntil]);
  return rows[0];
}

/** Up to `limit` due or asked-for sources leased for the worker (CLAIM_DUE_SQL). */
export async function claimDueSourceRows(
  q: Queryable,
  now: Date,
  limit: number,
  leaseUntil: Date,
  institutionIds: string[] | null,
): Promise<ClaimedSource[]> {
  const { rows } = await q.query<ClaimedSource>(CLAIM_DUE_SQL, [now, limit, leaseUntil, institutionIds]);
  return rows;
}

/** The cohort of the institution's source (undefined: no source), to say why none was claimed. */
export async function selectSourceCohort(
  q: Queryable,
  institutionId: string,
): Promise<SourceCohort | undefined> {
  const { rows } = await q.query<SourceCohort>(SOURCE_COHORT_SQL, [institutionId]);
  return rows[0];
}

/** The institution a pull writes into, as the feeds' functions take it. */
export async function selectPullInstitution(
  q: Queryable,
  institutionId: string,
): Promise<{ id: string; slug: string }> {
  const { rows } = await q.query<{ id: string; slug: string }>(
    'SELECT id, slug FROM institutions WHERE id = $1',
    [institutionId],
  );
  return rows[0];
}

/** A pull's end on its source (FINISH_SQL); nothing when the lease was lost. */
export async function finishPull(q: Queryable, end: PullFinish): Promise<void> {
  await q.query(FINISH_SQL, [JSON.stringify(end)]);
}

/** The institution's source locked until the transaction ends, for "Sync now". */
export async function lockRequestableSource(
  q: Queryable,
  institutionId: string,
  now: Date,
): Promise<RequestableSource | undefined> {
  const { rows } = await q.query<RequestableSource>(REQUEST_LOCK_SQL, [institutionId, now]);
  return rows[0];
}

/** Stores a pull asked for, with a new run id to record it under. */
export async function insertPullRequest(
  q: Queryable,
  sourceId: string,
  mode: string,
  now: Date,
): Promise<RequestedPull> {
  const { rows } = await q.query<RequestedPull>(REQUEST_SQL, [sourceId, mode, now]);
  return rows[0];
}

/** A pull asked for and not ended, by its run id: its mode, when, and whether it runs now. */
export async function selectRequestedPull(
  q: Queryable,
  institutionId: string,
  runId: string,
  now: Date,
): Promise<{ requested_mode: PullMode; requested_at: Date; pulling: boolean } | undefined> {
  const { rows } = await q.query<{ requested_mode: PullMode; requested_at: Date; pulling: boolean }>(
    `SELECT requested_mode, requested_at, (lease_until IS NOT NULL AND lease_until > $3) AS pulling
     FROM oneroster_sources WHERE institution_id = $1 AND requested_run_id = $2`,
    [institutionId, runId, now],
  );
  return rows[0];
}
