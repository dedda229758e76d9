// Roster sync (spec 2.1 and 4.1): a page of up to 5000 student rows for one cohort.
//
// A page costs a fixed number of queries whatever its size: inside one transaction, a
// per-institution advisory lock, one query matching every row on both keys (resolving
// program and campus, and reading the matched students' stored values), one INSERT for the
// new students and one UPDATE for the matched ones whose values change (none: no UPDATE).
// Rows travel to SQL as one JSON parameter (json_to_recordset: plain json is parsed once,
// without building jsonb first), which both drivers accept.
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

import type { Db, Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { campusNamesSql } from '../campuses/names.ts';
import {
  type FullSyncOutcome,
  namedKeys,
  previewFullSyncPage,
  recordFullSyncPage,
} from '../departures/departures.ts';
import { batchLimits, checkBatchSize } from '../feeds/batch-limits.ts';
import { warningsWithLines, withLines } from '../runs/lines.ts';
import { type RunCredential, recordRun } from '../runs/runs.ts';
import {
  changes,
  type MatchRow,
  type Planned,
  plan,
  type RosterWarning,
  unmatched,
  type ValueRows,
} from './plan.ts';
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

const current = (column: string, as: string) =>
  `CASE WHEN se.id IS NOT NULL THEN se.${column} ELSE sx.${column} END AS ${as}`;

const MATCH_SQL = `
WITH campus_names AS (${campusNamesSql})
SELECT r.ord,
       lower(r.email) AS email_key,
       se.id AS email_student_id,
       sx.id AS ext_student_id,
       p.id AS program_id,
       COALESCE(cn.id, cc.id) AS campus_id,
       ${current('cohort_id', 'cur_cohort_id')},
       ${current('email', 'cur_email')},
       ${current('student_id_ext', 'cur_ext')},
       ${current('first_name', 'cur_first_name')},
       ${current('last_name', 'cur_last_name')},
       ${current('program_id', 'cur_program_id')},
       ${current('campus_id', 'cur_campus_id')},
       ${current('first_in_family', 'cur_first_in_family')},
       to_char(CASE WHEN se.id IS NOT NULL THEN se.start_date ELSE sx.start_date END, 'YYYY-MM-DD')
         AS cur_start_date,
       ${current('departed_at', 'cur_departed_at')}
FROM json_to_recordset($2::json)
       AS r(ord int, email text, ext text, program_code text, campus_name text, campus_code text)
LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.ext
LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.program_code)
LEFT JOIN campus_names cn ON cn.key = lower(r.campus_name)
LEFT JOIN campus_names cc ON cc.key = lower(r.campus_code)`;
// No ORDER BY: plan() finds each row's match by its ord, so sorting 5000 wide rows bought nothing.

const INSERT_SQL = `
INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name,
                      program_id, campus_id, first_in_family, start_date)
SELECT $1, $2, r.email, r.ext, r.first_name, r.last_name, r.program_id, r.campus_id,
       r.first_in_family, r.start_date
FROM json_to_recordset($3::json)
       AS r(email text, ext text, first_name text, last_name text, program_id uuid, campus_id uuid,
            first_in_family boolean, start_date date)`;

// Only rows whose values really change are sent (see changes(); the page holds the
// institution's lock, so what the match read is still current); updated_at moves only then.
// The response still counts every matched row as updated.
const UPDATE_SQL = `
UPDATE students s
SET cohort_id = $2,
    email = r.email,
    student_id_ext = r.ext,
    first_name = COALESCE(r.first_name, s.first_name),
    last_name = COALESCE(r.last_name, s.last_name),
    program_id = COALESCE(r.program_id, s.program_id),
    campus_id = COALESCE(r.campus_id, s.campus_id),
    first_in_family = COALESCE(r.first_in_family, s.first_in_family),
    start_date = COALESCE(r.start_date, s.start_date),
    departed_at = NULL,
    updated_at = now()
FROM json_to_recordset($3::json)
       AS r(id uuid, email text, ext text, first_name text, last_name text, program_id uuid,
            campus_id uuid, first_in_family boolean, start_date date)
WHERE s.id = r.id AND s.institution_id = $1`;

export interface RosterSyncOptions {
  /** Full-sync departures above this share of the cohort are held. */
  departureHoldThreshold: number;
  clock: { now(): Date };
}

export function createRosterSyncService(db: Db, options: RosterSyncOptions) {
  async function match(q: Queryable, institutionId: string, rows: RosterRow[]): Promise<MatchRow[]> {
    if (rows.length === 0) return [];
    const payload = rows.map((r) => ({
      ord: r.row,
      email: r.email,
      ext: r.student_id_ext,
      program_code: r.program_code ?? null,
      campus_name: r.campus_name ?? null,
      campus_code: r.campus_code ?? null,
    }));
    const { rows: matches } = await q.query<MatchRow>(MATCH_SQL, [institutionId, JSON.stringify(payload)]);
    return matches;
  }

  async function sync(input: SyncInput): Promise<SyncResult | DryRunResult> {
    const { institutionId, cohortId, students, dryRun, fullSync } = input;
    checkPageSize(students);
    const startedAt = options.clock.now();
    const rowErrors: RowError[] = [];
    const badDates: BadDate[] = [];
    const valid: RosterRow[] = [];
    students.forEach((raw, index) => {
      const result = validateRow(raw, index);
      if (result.badDate) badDates.push(result.badDate);
      if (result.ok) valid.push(result.row);
      else rowErrors.push(result.error);
    });

    // Matched rows identical to the stored student: the response counts them as updated (the
    // interface's `updated`), the run history as unchanged.
    let unchanged = 0;
    /** Matches (and, on a real push, writes) the page; returns the response without its run id. */
    const run = async (q: Queryable): Promise<Omit<SyncResult, 'run_id'> | Omit<DryRunResult, 'run_id'>> => {
      const matches = await match(q, institutionId, valid);
      const decided = plan(valid, matches);
      const creates = decided.planned.filter((p) => !p.studentId);
      const updates = decided.planned.filter((p) => p.studentId);
      if (!dryRun) {
        const values = (p: Planned) => ({
          email: p.row.email,
          ext: p.row.student_id_ext,
          first_name: p.row.first_name ?? null,
          last_name: p.row.last_name ?? null,
          program_id: p.match.program_id,
          campus_id: p.match.campus_id,
          first_in_family: p.row.first_in_family ?? null,
          start_date: p.row.start_date ?? null,
        });
        if (creates.length > 0) {
          await q.query(INSERT_SQL, [institutionId, cohortId, JSON.stringify(creates.map(values))]);
        }
        const changed = updates.filter((p) => changes(p, cohortId));
        unchanged = updates.length - changed.length;
        if (changed.length > 0) {
          await q.query(UPDATE_SQL, [
            institutionId,
            cohortId,
            JSON.stringify(changed.map((p) => ({ id: p.studentId, ...values(p) }))),
          ]);
        }
      }
      // A full-sync page is recorded once its rows are written; every row names its student,
      // valid or not. (A departed student that a row imports comes back through the UPDATE.)
      const page = fullSync && {
        institutionId,
        cohortId,
        syncId: fullSync.syncId,
        finalPage: fullSync.finalPage,
        keys: namedKeys(students),
        now: options.clock.now(),
      };
      let fullSyncReport: FullSyncReport | undefined;
      if (dryRun) {
        if (page) fullSyncReport = await previewFullSyncPage(q, page, options.departureHoldThreshold);
      } else if (page) {
        fullSyncReport = await recordFullSyncPage(q, page, options.departureHoldThreshold);
      }

      const errors = [...rowErrors, ...decided.errors].sort((a, b) => a.row - b.row);
      const warnings = unmatched(decided.planned);
      const fullSyncPart = fullSyncReport ? { full_sync: fullSyncReport } : {};
      if (!dryRun) {
        return {
          received: students.length,
          created: creates.length,
          updated: updates.length,
          imported: creates.length + updates.length,
          errors,
          warnings,
          ...fullSyncPart,
        };
      }
      const values = (code: RosterWarning['code']) =>
        warnings.filter((w) => w.code === code).map(({ value, rows }) => ({ value, rows }));
      return {
        received: students.length,
        created: 0,
        updated: 0,
        imported: 0,
        errors,
        warnings,
        dry_run: true,
        would_create: creates.length,
        would_update: updates.length,
        unknown_program_codes: values('unknown_program_code'),
        unknown_campus_values: values('unknown_campus'),
        duplicate_emails: [...decided.duplicateEmails.values()],
        duplicate_student_id_exts: [...decided.duplicateExts.values()],
        bad_dates: badDates,
        ...fullSyncPart,
      };
    };

    /** The page in the run history: its counts, row errors, and warnings (in details). */
    const record = (q: Queryable, result: Omit<SyncResult, 'run_id'>) => {
      const { received, errors, warnings, ...counts } = result;
      return recordRun(q, {
        institutionId,
        kind: 'roster',
        credential: input.credential,
        cohortId,
        dryRun,
        received,
        counts: dryRun ? counts : { ...counts, unchanged },
        errors: withLines(errors, () => input.lines),
        details: { warnings: warningsWithLines(warnings, input.lines) },
        startedAt,
        finishedAt: options.clock.now(),
      });
    };

    if (dryRun) {
      const result = await run(db);
      return { run_id: input.unrecorded ? '' : await record(db, result), ...result } as DryRunResult;
    }
    return db.transaction(async (tx) => {
      // Pages for one institution run one at a time: the same page sent twice at once
      // neither fails nor duplicates, while other institutions proceed in parallel.
      await lockInstitution(tx, institutionId, InstitutionLock.roster);
      const result = await run(tx);
      return { run_id: input.unrecorded ? '' : await record(tx, result), ...result };
    });
  }

  return { sync };
}

export type RosterSyncService = ReturnType<typeof createRosterSyncService>;
