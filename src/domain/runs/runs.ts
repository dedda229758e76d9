// The history of SIS pushes. Every roster and enrolments request, dry-run or real, becomes a
// run: when, which credential kind, which cohort or sections, the counts and the row errors,
// so an institution can see what last night's push did.

import type { Db, Queryable } from '../../db/db.ts';
import { type KeysetPage, keysetPage, type Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { CursorKey, KeysetOrder } from '../../lib/cursor.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { storableJson } from '../../lib/text.ts';

/** Row errors kept per run; the count is always exact, the list is capped. */
export const RUN_ERRORS_KEPT = 1000;

export const runOrder: KeysetOrder = { listing: 'runs', key: ['timestamp', 'uuid'] };

/** oneroster: a pull of the institution's OneRoster source (src/domain/oneroster/pull). */
export type RunKind = 'roster' | 'enrolments' | 'oneroster';
export type RunCredential = 'institution_secret' | 'bootstrap_secret' | 'oneroster_source';
/** push: the SIS sent it through a feed; pull: the service fetched it from a OneRoster source. */
export type RunTrigger = 'push' | 'pull';

export interface NewRun {
  institutionId: string;
  kind: RunKind;
  credential: RunCredential;
  trigger?: RunTrigger;
  cohortId?: string;
  sections?: string[];
  dryRun: boolean;
  received: number;
  counts: Record<string, unknown>;
  errors: unknown[];
  /** Anything else worth keeping (dry-run findings, departures). */
  details?: Record<string, unknown>;
  startedAt: Date;
}

export interface RunSummary {
  id: string;
  kind: RunKind;
  credential: RunCredential;
  trigger: RunTrigger;
  cohort_id: string | null;
  sections: string[];
  dry_run: boolean;
  received: number;
  counts: Record<string, unknown>;
  error_count: number;
  started_at: Date;
  finished_at: Date;
}

export interface Run extends RunSummary {
  errors: unknown[];
  errors_truncated: boolean;
  details: Record<string, unknown>;
}

/**
 * Records a run; returns its id. A real push calls it inside its own transaction, so a push
 * that commits always has its run; a dry run, which writes nothing else, calls it on its own.
 */
export async function recordRun(q: Queryable, run: NewRun): Promise<string> {
  const kept = run.errors.slice(0, RUN_ERRORS_KEPT);
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO sis_runs (institution_id, kind, credential, cohort_id, sections, dry_run, received, counts,
                           error_count, errors, errors_truncated, details, started_at, trigger)
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8::jsonb, $9, $10::jsonb, $11, $12::jsonb, $13, $14)
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
    ],
  );
  return rows[0].id;
}

export interface DailyRuns {
  day: string;
  pushes: number;
  created: number;
  updated: number;
  errors: number;
}

export interface RunFilter {
  kind?: RunKind;
  /** First UTC day (YYYY-MM-DD) of runs to list, inclusive. */
  from?: string;
  /** Last UTC day (YYYY-MM-DD) of runs to list, inclusive. */
  to?: string;
  /** Only runs that reported row errors. */
  hasErrors?: boolean;
}

const DAY_MS = 86_400_000;
/** Bounds past any stored run, so the range condition always applies (and uses the index). */
const EARLIEST = '-infinity';
const LATEST = 'infinity';

/** A calendar day as a UTC midnight, or 400 invalid_field when it is not one (2026-02-30). */
function day(value: string, field: 'from' | 'to'): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years 1 to 99 as they are.
  if (m) date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (!m || date.toISOString().slice(0, 10) !== value || date.getUTCFullYear() < 1)
    throw new ApiError('invalid_field', {
      field: `querystring.${field}`,
      detail: `${field} must be a calendar day, YYYY-MM-DD (UTC)`,
    });
  return date;
}

/** The start (inclusive) and end (exclusive) instants of the days from..to; 400 when to is before from. */
export function dayRange(from: string | undefined, to: string | undefined): { start: string; end: string } {
  const start = from === undefined ? undefined : day(from, 'from');
  const last = to === undefined ? undefined : day(to, 'to');
  if (start && last && last < start)
    throw new ApiError('invalid_field', { field: 'querystring.to', detail: 'to must not be before from' });
  return {
    start: start ? start.toISOString() : EARLIEST,
    // The day after 9999-12-31 has no four-digit year: the range is then open-ended.
    end: last && last.getUTCFullYear() < 9999 ? new Date(last.getTime() + DAY_MS).toISOString() : LATEST,
  };
}

const summaryColumns = `id, kind, credential, trigger, cohort_id, sections, dry_run, received, counts, error_count,
  started_at, finished_at`;

export function createRunsService(db: Db) {
  return {
    /**
     * Runs, newest first, optionally of one feed, started within a range of UTC days, or with row
     * errors only. The day range is a range of sis_runs_listing_idx, "with errors" a partial
     * index of its own (migration 0017), so every page is a range scan after the cursor.
     */
    async list(institutionId: string, page: KeysetPage & RunFilter): Promise<Paged<RunSummary>> {
      const range = dayRange(page.from, page.to);
      const { rows } = await db.query<RunSummary & { sort_key: CursorKey }>(
        `SELECT ${summaryColumns}, json_build_array(started_at, id) AS sort_key FROM sis_runs
         WHERE institution_id = $1 AND ($2::text IS NULL OR kind = $2::text)
           AND ($3::timestamptz IS NULL OR (started_at, id) < ($3::timestamptz, $4::uuid))
           AND started_at >= $6::timestamptz AND started_at < $7::timestamptz
           ${page.hasErrors ? 'AND error_count > 0' : ''}
         ORDER BY started_at DESC, id DESC LIMIT $5`,
        [
          institutionId,
          page.kind ?? null,
          page.after?.[0] ?? null,
          page.after?.[1] ?? null,
          page.limit + 1,
          range.start,
          range.end,
        ],
      );
      return keysetPage(rows, page.limit);
    },

    /**
     * Runs per UTC day on which they started, within from..to (inclusive, at most 366 days):
     * how many, and the sums of their top-level `created` and `updated` counts and of their row
     * errors. One aggregate over sis_runs_listing_idx's range; days without runs are absent.
     */
    async daily(institutionId: string, filter: { kind?: RunKind; from: string; to: string }) {
      const range = dayRange(filter.from, filter.to);
      if (Date.parse(range.end) - Date.parse(range.start) > 366 * DAY_MS)
        throw new ApiError('invalid_field', {
          field: 'querystring.to',
          detail: 'from..to spans at most 366 days',
        });
      const { rows } = await db.query<DailyRuns>(
        `SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS pushes,
                COALESCE(sum(CASE WHEN jsonb_typeof(counts -> 'created') = 'number'
                                  THEN (counts ->> 'created')::numeric END), 0)::float8 AS created,
                COALESCE(sum(CASE WHEN jsonb_typeof(counts -> 'updated') = 'number'
                                  THEN (counts ->> 'updated')::numeric END), 0)::float8 AS updated,
                sum(error_count)::float8 AS errors
         FROM sis_runs
         WHERE institution_id = $1 AND ($2::text IS NULL OR kind = $2::text)
           AND started_at >= $3::timestamptz AND started_at < $4::timestamptz
         GROUP BY 1 ORDER BY 1`,
        [institutionId, filter.kind ?? null, range.start, range.end],
      );
      return rows;
    },

    /**
     * The kept row errors of a run from position `after` (1-based, exclusive), at most `limit`
     * of them, read out of the run's errors array by the database so a caller can stream them;
     * 404 when the run is not this institution's.
     */
    async errors(
      institutionId: string,
      runId: string,
      page: { after: number; limit: number },
    ): Promise<{ position: number; error: unknown }[]> {
      const { rows } = uuidPattern.test(runId)
        ? await db.query<{ position: number; error: unknown; found: boolean }>(
            `SELECT e.position, e.error, true AS found
             FROM sis_runs r
             LEFT JOIN LATERAL jsonb_array_elements(r.errors) WITH ORDINALITY AS e(error, position)
               ON e.position > $3
             WHERE r.institution_id = $1 AND r.id = $2
             ORDER BY e.position LIMIT $4`,
            [institutionId, runId, page.after, page.limit],
          )
        : { rows: [] };
      if (!rows[0]) throw new ApiError('not_found', { detail: `no run ${runId} in this institution` });
      return rows.filter((row) => row.position !== null).map(({ position, error }) => ({ position, error }));
    },

    async get(institutionId: string, runId: string): Promise<Run> {
      const { rows } = uuidPattern.test(runId)
        ? await db.query<Run>(
            `SELECT ${summaryColumns}, errors, errors_truncated, details FROM sis_runs
             WHERE institution_id = $1 AND id = $2`,
            [institutionId, runId],
          )
        : { rows: [] };
      if (!rows[0]) throw new ApiError('not_found', { detail: `no run ${runId} in this institution` });
      return rows[0];
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
