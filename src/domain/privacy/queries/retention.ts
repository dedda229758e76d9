// Retention's SQL: each statement finds at most `limit` rows past their time (by an index on the
// time where the table is large) and removes or clears them, so a run is a series of bounded
// batches that never hold many locks for long.
import type { Queryable } from '../../../db/db.ts';
import type { StoredSettings } from '../retention-periods.ts';

export async function selectSettings(
  db: Queryable,
  institutionId: string,
): Promise<StoredSettings | undefined> {
  const { rows } = await db.query<Record<string, number | null>>(
    `SELECT resolved_requests_days, departed_students_days, run_errors_days, webhook_bodies_days,
       notifications_days, access_log_days FROM retention_settings WHERE institution_id = $1`,
    [institutionId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k.replace(/_days$/, ''), v]),
  ) as StoredSettings;
}

export async function upsertSettings(
  db: Queryable,
  institutionId: string,
  settings: StoredSettings,
  at: Date,
) {
  const record = Object.fromEntries(Object.entries(settings).map(([k, v]) => [`${k}_days`, v]));
  // Only the named periods change: a column absent from the change keeps its stored value.
  const names = Object.keys(record);
  const set = names.map((n) => `${n} = r.${n}`).join(', ');
  await db.query(
    `INSERT INTO retention_settings (institution_id, updated_at) VALUES ($1, $2)
     ON CONFLICT (institution_id) DO NOTHING`,
    [institutionId, at.toISOString()],
  );
  if (names.length === 0) return;
  await db.query(
    `UPDATE retention_settings s SET ${set}, updated_at = $3
     FROM json_to_record($2::json) AS r(resolved_requests_days int, departed_students_days int, run_errors_days int,
       webhook_bodies_days int, notifications_days int, access_log_days int)
     WHERE s.institution_id = $1`,
    [institutionId, JSON.stringify(record), at.toISOString()],
  );
}

export async function departedStudentsBefore(
  db: Queryable,
  institutionId: string,
  before: Date,
  limit: number,
) {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM students WHERE institution_id = $1 AND departed_at IS NOT NULL AND departed_at < $2 LIMIT $3`,
    [institutionId, before.toISOString(), limit],
  );
  return rows.map((r) => r.id);
}

export async function resolvedRequestsBefore(
  db: Queryable,
  institutionId: string,
  before: Date,
  limit: number,
) {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM help_requests
     WHERE resolved_at < $2 AND erased_at IS NULL AND resolved_at IS NOT NULL AND institution_id = $1
     ORDER BY resolved_at LIMIT $3`,
    [institutionId, before.toISOString(), limit],
  );
  return rows.map((r) => r.id);
}

/** Push history keeps its counts; row errors, warnings and lists of values go. */
export async function clearRunErrors(db: Queryable, institutionId: string, before: Date, limit: number) {
  const { rowCount } = await db.query(
    `UPDATE sis_runs r SET errors = '[]', details = '{}',
       counts = coalesce((SELECT jsonb_object_agg(k, v) FROM jsonb_each(r.counts) AS c(k, v)
                          WHERE jsonb_typeof(v) NOT IN ('array', 'object')), '{}'::jsonb)
     WHERE r.id IN (
       SELECT id FROM sis_runs WHERE institution_id = $1 AND started_at < $2
         AND (errors <> '[]'::jsonb OR details <> '{}'::jsonb
           OR EXISTS (SELECT 1 FROM jsonb_each(counts) AS c(k, v) WHERE jsonb_typeof(v) IN ('array', 'object')))
       LIMIT $3)`,
    [institutionId, before.toISOString(), limit],
  );
  return rowCount ?? 0;
}

export async function clearAttemptBodies(db: Queryable, institutionId: string, before: Date, limit: number) {
  const { rowCount } = await db.query(
    `UPDATE webhook_attempts SET request_headers = NULL, response_headers = NULL, response_body = NULL, error = NULL
     WHERE id IN (
       SELECT id FROM webhook_attempts WHERE attempted_at < $2 AND institution_id = $1
         AND (request_headers IS NOT NULL OR response_headers IS NOT NULL OR response_body IS NOT NULL OR error IS NOT NULL)
       LIMIT $3)`,
    [institutionId, before.toISOString(), limit],
  );
  return rowCount ?? 0;
}

export async function deleteNotifications(db: Queryable, institutionId: string, before: Date, limit: number) {
  const { rowCount } = await db.query(
    `DELETE FROM notifications WHERE id IN (
       SELECT id FROM notifications WHERE institution_id = $1 AND state <> 'pending' AND created_at < $2 LIMIT $3)`,
    [institutionId, before.toISOString(), limit],
  );
  return rowCount ?? 0;
}

export async function deleteAccessLog(db: Queryable, institutionId: string, before: Date, limit: number) {
  const { rowCount } = await db.query(
    `DELETE FROM access_log WHERE id IN (
       SELECT id FROM access_log WHERE institution_id = $1 AND at < $2 LIMIT $3)`,
    [institutionId, before.toISOString(), limit],
  );
  return rowCount ?? 0;
}

export async function institutionIds(db: Queryable) {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM institutions ORDER BY id`);
  return rows.map((r) => r.id);
}

export async function recordRetentionRun(
  db: Queryable,
  run: { institutionId: string; startedAt: Date; finishedAt: Date; removed: Record<string, number> },
) {
  await db.query(
    `INSERT INTO retention_runs (institution_id, started_at, finished_at, removed) VALUES ($1, $2, $3, $4)`,
    [
      run.institutionId,
      run.startedAt.toISOString(),
      run.finishedAt.toISOString(),
      JSON.stringify(run.removed),
    ],
  );
}

export async function lastRetentionRun(db: Queryable, institutionId: string) {
  const { rows } = await db.query<{ started_at: Date; finished_at: Date; removed: Record<string, number> }>(
    `SELECT started_at, finished_at, removed FROM retention_runs WHERE institution_id = $1
     ORDER BY finished_at DESC LIMIT 1`,
    [institutionId],
  );
  return rows[0];
}

export async function recentErasures(db: Queryable, institutionId: string, limit: number) {
  const { rows } = await db.query<{
    id: string;
    reason: string;
    erased_by: string;
    erased_at: Date;
    removed: Record<string, number>;
  }>(
    `SELECT id, reason, erased_by, erased_at, removed FROM student_erasures WHERE institution_id = $1
     ORDER BY erased_at DESC LIMIT $2`,
    [institutionId, limit],
  );
  return rows;
}
