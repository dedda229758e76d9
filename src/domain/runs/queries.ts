// The SQL of the push history (sis_runs). Every statement is keyed by institution; the listing and
// the daily sums are ranges of sis_runs_listing_idx (institution, started_at, id), "with errors"
// a partial index of its own (migration 0017), and a run's errors are read out of its JSON array
// by the database so a caller can stream them.
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, type Paged, readKeysetPage } from '../../db/keyset.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';
import { storableJson } from '../../lib/text.ts';
import type { DailyRuns, NewRun, Run, RunKind, RunSummary } from './schemas.ts';

const summaryColumns = `id, kind, credential, trigger, cohort_id, sections, dry_run, received, counts, error_count,
  started_at, finished_at`;

/** Inserts a run with its first `kept` errors; returns its id. */
export async function insertRun(q: Queryable, run: NewRun, kept: unknown[]): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO sis_runs (id, institution_id, kind, credential, cohort_id, sections, dry_run, received, counts,
                           error_count, errors, errors_truncated, details, started_at, trigger, finished_at)
     VALUES (COALESCE($16::uuid, gen_random_uuid()), $1, $2, $3, $4, $5::text[], $6, $7, $8::jsonb, $9,
             $10::jsonb, $11, $12::jsonb, $13, $14, COALESCE($15::timestamptz, now()))
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      run.institutionId,
      run.kind,
      run.credential,
      run.cohortId ?? null,
      run.sections ?? [],
      run.dryRun,
      run.received,
      storableJson(run.counts),
      run.errors.length,
      storableJson(kept),
      kept.length < run.errors.length,
      storableJson(run.details ?? {}),
      run.startedAt,
      run.trigger ?? 'push',
      run.finishedAt ?? null,
      run.id ?? null,
    ],
  );
  // A chosen id already recorded (a pull retried after its worker died between recording its
  // run and releasing its source): the retry is a run of its own.
  if (!rows[0] && run.id) return insertRun(q, { ...run, id: undefined }, kept);
  return rows[0].id;
}

export interface RunPageQuery {
  kind?: RunKind;
  hasErrors?: boolean;
  /** Start (inclusive) and end (exclusive) instants of the days asked for. */
  start: string;
  end: string;
}

/** A page of runs, newest first. */
export function selectRunPage(
  q: Queryable,
  institutionId: string,
  page: RunPageQuery & KeysetPage,
): Promise<Paged<RunSummary>> {
  return readKeysetPage<RunSummary>(
    q,
    `SELECT ${summaryColumns}, json_build_array(started_at, id) AS sort_key FROM sis_runs
     WHERE institution_id = $1 AND ($2::text IS NULL OR kind = $2::text)
       AND ($5::timestamptz IS NULL OR (started_at, id) < ($5::timestamptz, $6::uuid))
       AND started_at >= $3::timestamptz AND started_at < $4::timestamptz
       ${page.hasErrors ? 'AND error_count > 0' : ''}
     ORDER BY started_at DESC, id DESC LIMIT $7`,
    [institutionId, page.kind ?? null, page.start, page.end],
    page,
    2,
  );
}

/**
 * What a run created and updated, read from its counts: the top-level numbers (roster and
 * OneRoster runs; a roster run's identical rows, `unchanged`, are not updates) or else the sum of
 * its sections' (an enrolments push keeps one report per section).
 */
const RUN_TOTALS_SQL = `
  CROSS JOIN LATERAL (
    SELECT CASE WHEN jsonb_typeof(r.counts -> 'created') = 'number' THEN (r.counts ->> 'created')::numeric
                ELSE (SELECT COALESCE(sum((v ->> 'created')::numeric), 0) FROM jsonb_each(r.counts) AS e(k, v)
                      WHERE jsonb_typeof(v) = 'object' AND jsonb_typeof(v -> 'created') = 'number') END AS created,
           CASE WHEN jsonb_typeof(r.counts -> 'updated') = 'number'
                THEN (r.counts ->> 'updated')::numeric
                     - CASE WHEN jsonb_typeof(r.counts -> 'unchanged') = 'number'
                            THEN (r.counts ->> 'unchanged')::numeric ELSE 0 END
                ELSE (SELECT COALESCE(sum((v ->> 'updated')::numeric), 0) FROM jsonb_each(r.counts) AS e(k, v)
                      WHERE jsonb_typeof(v) = 'object' AND jsonb_typeof(v -> 'updated') = 'number') END AS updated
  ) t`;

/**
 * Runs per UTC day on which they started, between two instants; days without runs are absent.
 * The sums are of real pushes only; dry runs are counted apart (they write nothing).
 */
export async function selectDaily(
  q: Queryable,
  institutionId: string,
  filter: { kind?: RunKind; start: string; end: string },
): Promise<DailyRuns[]> {
  const { rows } = await q.query<DailyRuns>(
    `SELECT to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            count(*) FILTER (WHERE NOT r.dry_run)::int AS pushes,
            COALESCE(sum(t.created) FILTER (WHERE NOT r.dry_run), 0)::float8 AS created,
            COALESCE(sum(t.updated) FILTER (WHERE NOT r.dry_run), 0)::float8 AS updated,
            COALESCE(sum(r.error_count) FILTER (WHERE NOT r.dry_run), 0)::float8 AS errors,
            count(*) FILTER (WHERE r.dry_run)::int AS dry_runs,
            COALESCE(sum(r.error_count) FILTER (WHERE r.dry_run), 0)::float8 AS dry_run_errors
     FROM sis_runs r ${RUN_TOTALS_SQL}
     WHERE r.institution_id = $1 AND ($2::text IS NULL OR r.kind = $2::text)
       AND r.started_at >= $3::timestamptz AND r.started_at < $4::timestamptz
     GROUP BY 1 ORDER BY 1`,
    [institutionId, filter.kind ?? null, filter.start, filter.end],
  );
  return rows;
}

/**
 * A run's kept errors after position `after` (1-based), at most `limit`; one row with a null
 * position when the run exists but has none left, no row when it is not the institution's.
 */
export async function selectRunErrors(
  q: Queryable,
  institutionId: string,
  runId: string,
  page: { after: number; limit: number },
) {
  const { rows } = await q.query<{ position: number | null; error: unknown }>(
    `SELECT e.position, e.error
     FROM sis_runs r
     LEFT JOIN LATERAL jsonb_array_elements(r.errors) WITH ORDINALITY AS e(error, position)
       ON e.position > $3
     WHERE r.institution_id = $1 AND r.id = $2
     ORDER BY e.position LIMIT $4`,
    [institutionId, runId, page.after, page.limit],
  );
  return rows;
}

/** One run of the institution with its errors and details, or undefined. */
export const selectRun = (q: Queryable, institutionId: string, runId: string) =>
  selectOwnedRow<Run>(
    q,
    'sis_runs',
    `${summaryColumns}, errors, errors_truncated, details`,
    institutionId,
    runId,
  );

/**
 * The names of the institution's students with these emails or external ids (a run's row errors
 * name their rows by the keys they were sent with): one statement, two index ranges
 * (students_email_key, students_ext_id_key), whatever the number of errors (at most 1000 kept).
 */
export async function selectStudentNames(
  q: Queryable,
  institutionId: string,
  keys: { emails: string[]; exts: string[] },
) {
  const { rows } = await q.query<{ email: string; student_id_ext: string; name: string }>(
    `SELECT lower(email) AS email, student_id_ext, concat_ws(' ', first_name, last_name) AS name
     FROM students
     WHERE institution_id = $1 AND (lower(email) = ANY($2::text[]) OR student_id_ext = ANY($3::text[]))
       AND (first_name IS NOT NULL OR last_name IS NOT NULL)`,
    [institutionId, keys.emails, keys.exts],
  );
  return rows;
}

/** What the integration checklist (./onboarding.ts) is read from. */
export interface ChecklistFacts {
  taxonomy: boolean;
  roster_dry_run: boolean;
  roster_pushed: boolean;
  last_real_id: string | null;
  last_real_errors: number | null;
  last_full_sync: Date | null;
}

/** The checklist's facts: one statement of five indexed lookups. */
export async function checklistFacts(db: Queryable, institutionId: string): Promise<ChecklistFacts> {
  const { rows } = await db.query<ChecklistFacts>(
    `SELECT
       EXISTS (SELECT 1 FROM sis_runs WHERE institution_id = $1 AND NOT dry_run
               AND (kind = 'oneroster' OR (kind = 'enrolments' AND sections && ARRAY['programs', 'campuses', 'terms', 'units']))) AS taxonomy,
       EXISTS (SELECT 1 FROM sis_runs WHERE institution_id = $1 AND kind = 'roster' AND dry_run) AS roster_dry_run,
       EXISTS (SELECT 1 FROM sis_runs WHERE institution_id = $1 AND NOT dry_run AND kind IN ('roster', 'oneroster')) AS roster_pushed,
       (SELECT id FROM sis_runs WHERE institution_id = $1 AND NOT dry_run AND kind IN ('roster', 'oneroster')
        ORDER BY started_at DESC, id DESC LIMIT 1) AS last_real_id,
       (SELECT error_count FROM sis_runs WHERE institution_id = $1 AND NOT dry_run AND kind IN ('roster', 'oneroster')
        ORDER BY started_at DESC, id DESC LIMIT 1) AS last_real_errors,
       (SELECT max(finished_at) FROM full_syncs WHERE institution_id = $1 AND status <> 'open') AS last_full_sync`,
    [institutionId],
  );
  return rows[0] as ChecklistFacts;
}
