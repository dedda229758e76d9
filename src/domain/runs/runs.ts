// The history of SIS pushes. Every roster and enrolments request, dry-run or real, becomes a
// run: when, which credential kind, which cohort or sections, the counts and the row errors,
// so an institution can see what last night's push did. Each function below is one query
// (queries.ts); the admin API and the console's push-history pages call the same ones.

import type { Queryable } from '../../db/db.ts';
import type { KeysetPage, Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { feedRowErrors, feedRows, feedRowsReceived, runsTotal } from '../../lib/telemetry/metrics.ts';
import {
  insertRun,
  selectDaily,
  selectRun,
  selectRunErrors,
  selectRunPage,
  selectStudentNames,
} from './queries.ts';
import type { DailyRuns, NewRun, Run, RunFilter, RunKind, RunSummary } from './schemas.ts';

export type {
  DailyRuns,
  NewRun,
  Run,
  RunCredential,
  RunFilter,
  RunKind,
  RunSummary,
  RunTrigger,
} from './schemas.ts';

/** Row errors kept per run; the count is always exact, the list is capped. */
export const RUN_ERRORS_KEPT = 1000;

export const runOrder: KeysetOrder = { listing: 'runs', key: ['timestamp', 'uuid'] };

/** The longest span of the daily sums. */
export const MAX_DAILY_DAYS = 366;

/**
 * Records a run; returns its id. A real push calls it inside its own transaction, so a push
 * that commits always has its run; a dry run, which writes nothing else, calls it on its own.
 */
export async function recordRun(q: Queryable, run: NewRun): Promise<string> {
  const id = await insertRun(q, run, run.errors.slice(0, RUN_ERRORS_KEPT));
  countRun(run);
  return id;
}

/**
 * The run in the process's metrics: its outcome, and (a real push or pull) its rows by outcome.
 * Counted once recorded; a push whose transaction then rolls back (rare) is counted too.
 */
function countRun(run: NewRun): void {
  const failed = run.counts.status === 'failed';
  const outcome = failed ? 'failed' : run.errors.length > 0 ? 'row_errors' : 'ok';
  runsTotal.inc({ kind: run.kind, outcome, dry_run: String(run.dryRun) });
  if (run.received > 0) feedRowsReceived.inc({ feed: run.kind }, run.received);
  if (run.errors.length > 0) feedRowErrors.inc({ feed: run.kind }, run.errors.length);
  if (run.dryRun) return;
  for (const [key, value] of Object.entries(run.counts)) {
    if (typeof value === 'number' && value > 0 && rowOutcomes.has(key))
      feedRows.inc({ feed: run.kind, outcome: key }, value);
  }
}

/** The counts of a run that are rows by outcome (a bounded set of labels). */
const rowOutcomes = new Set(['created', 'updated', 'unchanged', 'departed', 'returned', 'removed', 'moved']);

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
      field,
      detail: `${field} must be a calendar day, YYYY-MM-DD (UTC)`,
    });
  return date;
}

/** The start (inclusive) and end (exclusive) instants of the days from..to; 400 when to is before from. */
export function dayRange(from: string | undefined, to: string | undefined): { start: string; end: string } {
  const start = from === undefined ? undefined : day(from, 'from');
  const last = to === undefined ? undefined : day(to, 'to');
  if (start && last && last < start)
    throw new ApiError('invalid_field', { field: 'to', detail: 'to must not be before from' });
  return {
    start: start ? start.toISOString() : EARLIEST,
    // The day after 9999-12-31 has no four-digit year: the range is then open-ended.
    end: last && last.getUTCFullYear() < 9999 ? new Date(last.getTime() + DAY_MS).toISOString() : LATEST,
  };
}

/**
 * Runs, newest first, optionally of one feed, started within a range of UTC days, or with row
 * errors only. Every page is a range scan after the cursor.
 */
export async function listRuns(
  db: Queryable,
  institutionId: string,
  page: KeysetPage & RunFilter,
): Promise<Paged<RunSummary>> {
  const range = dayRange(page.from, page.to);
  return selectRunPage(db, institutionId, {
    kind: page.kind,
    hasErrors: page.hasErrors,
    ...range,
    after: page.after,
    limit: page.limit,
  });
}

/**
 * Runs per UTC day on which they started, within from..to (inclusive, at most 366 days): how
 * many real runs, the sums of what they created and updated (sections summed; identical rows
 * are not updates) and of their row errors, then the dry runs and their row errors apart. One
 * aggregate over the listing index's range; days without runs are absent.
 */
export function dailyRuns(
  db: Queryable,
  institutionId: string,
  filter: { kind?: RunKind; from: string; to: string },
): Promise<DailyRuns[]> {
  const range = dayRange(filter.from, filter.to);
  if (Date.parse(range.end) - Date.parse(range.start) > MAX_DAILY_DAYS * DAY_MS)
    throw new ApiError('invalid_field', {
      field: 'to',
      detail: `from..to spans at most ${MAX_DAILY_DAYS} days`,
    });
  return selectDaily(db, institutionId, { kind: filter.kind, ...range });
}

const runNotFound = (runId: string) =>
  new ApiError('not_found', { detail: `no run ${runId} in this institution` });

/**
 * The kept row errors of a run from position `after` (1-based, exclusive), at most `limit`
 * of them; 404 when the run is not this institution's.
 */
export async function runErrors(
  db: Queryable,
  institutionId: string,
  runId: string,
  page: { after: number; limit: number },
): Promise<{ position: number; error: unknown }[]> {
  const rows = uuidPattern.test(runId) ? await selectRunErrors(db, institutionId, runId, page) : [];
  if (!rows[0]) throw runNotFound(runId);
  return rows.flatMap(({ position, error }) => (position === null ? [] : [{ position, error }]));
}

/** A run with its kept row errors and details; 404 when it is not this institution's. */
export async function getRun(db: Queryable, institutionId: string, runId: string): Promise<Run> {
  const run = uuidPattern.test(runId) ? await selectRun(db, institutionId, runId) : undefined;
  if (!run) throw runNotFound(runId);
  return run;
}

/** How a row error names its student: by email (any case) or by external id. */
export function rowKeys(row: unknown): { email?: string; ext?: string } {
  const r = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
  return {
    email: typeof r.email === 'string' && r.email ? r.email.toLowerCase() : undefined,
    ext: typeof r.student_id_ext === 'string' && r.student_id_ext ? r.student_id_ext : undefined,
  };
}

/**
 * The stored names of the students a run's row errors name by their keys (a row that created no
 * student has none): a function from a row to its student's name, or undefined.
 */
export async function studentNamesOf(
  db: Queryable,
  institutionId: string,
  rows: readonly unknown[],
): Promise<(row: unknown) => string | undefined> {
  const keys = rows.map(rowKeys);
  const emails = [...new Set(keys.flatMap((k) => (k.email ? [k.email] : [])))];
  const exts = [...new Set(keys.flatMap((k) => (k.ext ? [k.ext] : [])))];
  if (!emails.length && !exts.length) return () => undefined;
  const found = await selectStudentNames(db, institutionId, { emails, exts });
  const byEmail = new Map(found.map((s) => [s.email, s.name]));
  const byExt = new Map(found.map((s) => [s.student_id_ext, s.name]));
  return (row) => {
    const { email, ext } = rowKeys(row);
    return (email && byEmail.get(email)) || (ext && byExt.get(ext)) || undefined;
  };
}

/** The functions above bound to a database, under the names every caller uses. */
