// Roster sync (spec 2.1 and 4.1): a page of up to 5000 student rows for one cohort.
//
// A page costs a fixed number of queries whatever its size: inside one transaction, a
// per-institution advisory lock, one statement that matches every row on both keys, decides
// with plan()'s rules and writes (queries.ts, writePage), and the run record. A dry run matches
// (matchPage) and plans in memory (plan.ts). Rows travel to SQL as one JSON parameter.
//
// Decisions (documented in docs/roster-sync.md and the OpenAPI description):
// - `row` in errors is the 0-based index in `students`.
// - Inside one page, the first valid row with a given email (case-insensitive) or
//   student_id_ext wins; later rows repeating either key are row errors naming that row.
// - A row matching one student by email and another by student_id_ext is a row error.
// - A row matching the same student as an earlier row of the page is a row error.
// - Optional fields that are absent, null, blank or unrecognised never clear a stored value.
// - `updated` counts every existing student a row matched, including ones already identical.
// - A program code or campus value that matches nothing is a warning, not an error: the row
//   imports with that value unset (or kept), and the warning is kept with the run.
// - The page is recorded in the run history inside its own transaction (a dry run, which
//   writes nothing else, records it on its own), so a push that commits always has its run.
// - Unlike the enrolments and catalogue feeds, a page does not refresh the planner's statistics
//   of students (src/db/statistics.ts): the match is planned as hash joins whether they are
//   stale or fresh, and ANALYZE of a large students table would cost a page more than the page
//   (measured in docs/oneroster.md, Performance).

import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { slices } from '../../lib/turns.ts';
import {
  type FullSyncOutcome,
  namedKeys,
  previewFullSyncPage,
  recordFullSyncPage,
} from '../departures/departures.ts';
import type { Deps } from '../deps.ts';
import { batchLimits, checkBatchSize } from '../feeds/batch-limits.ts';
import { warningsWithLines, withLines } from '../runs/lines.ts';
import { type RunCredential, recordRun } from '../runs/runs.ts';
import { plan, type RosterWarning, reported, unmatched, type ValueRows } from './plan.ts';
import { matchPage, type WrittenPage, writePage } from './queries.ts';
import { type BadDate, type RosterRow, type RowError, validateRow } from './rows.ts';

export { type RosterWarning, rosterWarningCodes, type ValueRows } from './plan.ts';
export type { RowError };

export const MAX_STUDENTS_PER_PAGE = batchLimits.roster.students;

/** 413 batch_too_large when a page has more rows than one request may carry (spec 4.1). */
export function checkPageSize(students: unknown[]): void {
  checkBatchSize('roster', 'students', students);
}

export interface SyncResult {
  /** This push in the run history. */
  run_id: string;
  received: number;
  created: number;
  updated: number;
  imported: number;
  errors: RowError[];
  warnings: RosterWarning[];
  full_sync?: FullSyncReport;
}

export interface DryRunResult extends SyncResult {
  dry_run: true;
  would_create: number;
  would_update: number;
  unknown_program_codes: ValueRows[];
  unknown_campus_values: ValueRows[];
  duplicate_emails: ValueRows[];
  duplicate_student_id_exts: ValueRows[];
  bad_dates: BadDate[];
}

export interface SyncInput {
  institutionId: string;
  cohortId: string;
  students: unknown[];
  dryRun: boolean;
  /** Which kind of secret authenticated the push, for the run history. */
  credential: RunCredential;
  /** The caller records the run itself (a OneRoster pull records one run for all its pages). */
  unrecorded?: boolean;
  /** Opt-in full sync: this page belongs to the sync named `syncId` (see departures). */
  fullSync?: { syncId: string; finalPage: boolean };
  /** The file line of each row, when the client knows it (runs/lines.ts). */
  lines?: readonly number[];
}

/** What a full-sync page adds to the response. */
export type FullSyncReport = FullSyncOutcome | Awaited<ReturnType<typeof previewFullSyncPage>>;

/** What a page needs: the database, the clock, and the share of a cohort whose departure is held. */
export type RosterSyncDeps = Pick<Deps, 'db' | 'clock'> & {
  config: Pick<Config, 'departureHoldThreshold'>;
};

/**
 * Every row of a page validated: the valid rows, the row errors and the dates ignored. A page of
 * 5000 rows is some 50 ms of this thread's time: cut into slices with a turn of the event loop
 * between (lib/turns.ts), so that requests are answered meanwhile.
 */
async function validatePage(students: unknown[]) {
  const rowErrors: RowError[] = [];
  const badDates: BadDate[] = [];
  const valid: RosterRow[] = [];
  const { pause } = slices();
  for (let index = 0; index < students.length; index++) {
    const turn = pause();
    if (turn) await turn;
    const result = validateRow(students[index], index);
    if (result.badDate) badDates.push(result.badDate);
    if (result.ok) valid.push(result.row);
    else rowErrors.push(result.error);
  }
  return { rowErrors, badDates, valid };
}

/** A dry run's answer (without its run id and full-sync part) from plan()'s decisions. */
function dryRunAnswer(
  received: number,
  rowErrors: RowError[],
  badDates: BadDate[],
  decided: ReturnType<typeof plan>,
): Omit<DryRunResult, 'run_id'> {
  const warnings = unmatched(decided.planned);
  const creates = decided.planned.filter((p) => !p.studentId).length;
  const values = (code: RosterWarning['code']) =>
    warnings.filter((w) => w.code === code).map(({ value, rows }) => ({ value, rows }));
  return {
    received,
    created: 0,
    updated: 0,
    imported: 0,
    errors: [...rowErrors, ...decided.errors].sort((a, b) => a.row - b.row),
    warnings,
    dry_run: true,
    would_create: creates,
    would_update: decided.planned.length - creates,
    unknown_program_codes: values('unknown_program_code'),
    unknown_campus_values: values('unknown_campus'),
    duplicate_emails: [...decided.duplicateEmails.values()],
    duplicate_student_id_exts: [...decided.duplicateExts.values()],
    bad_dates: badDates,
  };
}

type PageAnswer = Omit<SyncResult, 'run_id'> | Omit<DryRunResult, 'run_id'>;

/**
 * Matches (and, on a real push, writes) the page; returns the response without its run id and
 * how many matched rows were identical to the stored student (the response counts them as
 * updated, the interface's `updated`; the run history as unchanged).
 */
async function runPage(
  q: Queryable,
  deps: RosterSyncDeps,
  input: SyncInput,
  { rowErrors, badDates, valid }: Awaited<ReturnType<typeof validatePage>>,
): Promise<{ answer: PageAnswer; unchanged: number }> {
  const { institutionId, cohortId, students, dryRun, fullSync } = input;
  const threshold = deps.config.departureHoldThreshold;
  // A push matches, decides and writes in one statement; a dry run plans on the matches.
  const decided = dryRun ? plan(valid, await matchPage(q, institutionId, valid)) : undefined;
  const written = dryRun ? undefined : await writePage(q, institutionId, cohortId, valid);
  // A full-sync page is recorded once its rows are written; every row names its student,
  // valid or not. (A departed student that a row imports comes back through the UPDATE.)
  const page = fullSync && {
    institutionId,
    cohortId,
    syncId: fullSync.syncId,
    finalPage: fullSync.finalPage,
    keys: namedKeys(students),
    now: deps.clock.now(),
  };
  let fullSyncReport: FullSyncReport | undefined;
  if (page) {
    fullSyncReport = dryRun
      ? await previewFullSyncPage(q, page, threshold)
      : await recordFullSyncPage(q, page, threshold);
  }
  const fullSyncPart = fullSyncReport ? { full_sync: fullSyncReport } : {};
  if (decided) {
    const answer = { ...dryRunAnswer(students.length, rowErrors, badDates, decided), ...fullSyncPart };
    return { answer, unchanged: 0 };
  }
  const { created, updated, changed, reports } = written as WrittenPage;
  const { errors, warnings } = reported(valid, reports);
  const answer = {
    received: students.length,
    created,
    updated,
    imported: created + updated,
    errors: [...rowErrors, ...errors].sort((a, b) => a.row - b.row),
    warnings,
    ...fullSyncPart,
  };
  return { answer, unchanged: updated - changed };
}

/** The page in the run history: its counts, row errors, and warnings (in details). */
function recordPage(
  q: Queryable,
  input: SyncInput,
  times: { startedAt: Date; finishedAt: Date },
  { answer, unchanged }: Awaited<ReturnType<typeof runPage>>,
): Promise<string> {
  const { received, errors, warnings, ...counts } = answer;
  return recordRun(q, {
    institutionId: input.institutionId,
    kind: 'roster',
    credential: input.credential,
    cohortId: input.cohortId,
    dryRun: input.dryRun,
    received,
    counts: input.dryRun ? counts : { ...counts, unchanged },
    errors: withLines(errors, () => input.lines),
    details: { warnings: warningsWithLines(warnings, input.lines) },
    ...times,
  });
}

/** Pushes (or, with dryRun, evaluates) one page of a cohort's roster and records it as a run. */
export async function syncRoster(deps: RosterSyncDeps, input: SyncInput): Promise<SyncResult | DryRunResult> {
  checkPageSize(input.students);
  const startedAt = deps.clock.now();
  // Validated before the transaction: its slices yield, and the lock below should not wait on them.
  const checked = await validatePage(input.students);
  const withRun = async (q: Queryable, result: Awaited<ReturnType<typeof runPage>>) => ({
    run_id: input.unrecorded
      ? ''
      : await recordPage(q, input, { startedAt, finishedAt: deps.clock.now() }, result),
    ...result.answer,
  });
  if (input.dryRun)
    return (await withRun(deps.db, await runPage(deps.db, deps, input, checked))) as DryRunResult;
  return deps.db.transaction(async (tx) => {
    // Pages for one institution run one at a time: the same page sent twice at once
    // neither fails nor duplicates, while other institutions proceed in parallel.
    await lockInstitution(tx, input.institutionId, InstitutionLock.roster);
    return withRun(tx, await runPage(tx, deps, input, checked));
  });
}
