// Sends one stream of rows (a cohort's roster, or one section of the enrolments feed) page by
// page, one request at a time in file order, and reads every answer: counts into the report,
// each row error into the errors CSV with its file and line. Pages the resume state records
// as answered are skipped after checking that their rows are unchanged.
import { createHash, randomBytes } from 'node:crypto';
import { batchLimits } from '../../domain/feeds/batch-limits.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import type { FeedPost } from './feed-client.ts';
import type { RowOrigin, Section } from './model.ts';
import { type Item, type Items, lookahead, type Page, paginate } from './pages.ts';
import type { Progress } from './progress.ts';
import type { PushReport, SectionTotals } from './report.ts';
import type { PushState } from './state.ts';
import { type PlannedKeys, plannedReference, rememberPlanned } from './would-create.ts';

export type { Section };

/** The feeds' limits per request: the service's own figures (docs/roster-sync.md, docs/enrolments.md). */
export const PAGE_LIMITS: Record<Section, number> = {
  roster: batchLimits.roster.students,
  ...batchLimits.enrolments,
};

export interface PushContext {
  post: FeedPost;
  state: PushState;
  report: PushReport;
  progress: Progress;
  dryRun: boolean;
  /** Lower than the feed's limit to send smaller pages. */
  pageSize?: number;
  /** Called after each page answered. */
  afterPage?: () => void;
  /** Dry run: the keys earlier sections of this push send (would-create.ts). */
  planned?: PlannedKeys;
}

export interface SectionJob {
  section: Section;
  /** Key of this stream in the resume state. */
  stream: string;
  label: string;
  file: string;
  items: Items;
  /** roster */
  cohortId?: string;
  fullSync?: { syncId?: string };
  /** enrolments feed */
  institution?: string;
}

/** What stops a push, in one line; `exitCode` says which kind (exit-codes.ts). */
export class PushStopped extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode = EXIT.refused) {
    super(message);
    this.exitCode = exitCode;
  }
}

export async function pushSection(ctx: PushContext, job: SectionJob): Promise<SectionTotals> {
  const totals = ctx.report.section(job.label, job.file);
  const size = Math.min(PAGE_LIMITS[job.section], ctx.pageSize ?? Infinity);
  const onProblem = (item: Item) => {
    totals.received++;
    totals.rejected++;
    const p = item.problem!;
    ctx.report.rowError(item.origin, job.section, p.code, p.message, p.column ?? '');
  };
  const syncId =
    job.fullSync &&
    (job.fullSync.syncId ??
      ctx.state.syncId(
        job.stream,
        () => `ssp-push-${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`,
      ));
  let rowsSoFar = 0;
  let sentAny = false;
  for await (const { page, isLast } of lookahead(paginate(job.items, size, onProblem))) {
    totals.pages++;
    // The hash is of the rows' JSON, the same bytes the request carries.
    const hash = createHash('sha256').update(page.json).digest('hex');
    const done = ctx.state.donePage(job.stream, page.n);
    rowsSoFar += page.count;
    if (done) {
      if (done.hash !== hash || done.rows !== page.count) {
        throw new PushStopped(
          `${job.file}: page ${page.n} differs from the page sent before the interruption (the file changed); ` +
            'pass --restart to push it again from the start',
        );
      }
      totals.resumedPages++;
      addCounts(totals, done.counts);
      if (done.runId) totals.runIds.push(done.runId);
      ctx.progress.page(rowsSoFar, page.n, true);
      continue;
    }
    if (ctx.planned) rememberPlanned(ctx.planned, job.section, page);
    const final = syncId ? await isLast() : false;
    // Each row's file line, so the push history numbers rows as the file does (runs/lines.ts).
    const lines = Array.from({ length: page.count }, (_, i) => page.origin(i)?.line ?? 0);
    const envelope =
      job.section === 'roster'
        ? {
            cohort_id: job.cohortId,
            dry_run: ctx.dryRun,
            ...(syncId ? { sync_id: syncId, final_page: final } : {}),
            lines,
          }
        : { institution: job.institution, dry_run: ctx.dryRun, lines: { [job.section]: lines } };
    const key = job.section === 'roster' ? 'students' : job.section;
    // The envelope's fields, then the rows as they are in the page's buffer (not copied).
    const head = Buffer.from(`${JSON.stringify(envelope).slice(0, -1)},${JSON.stringify(key)}:`);
    const answer = await ctx.post(job.section === 'roster' ? '/api/sis/sync' : '/api/sis/enrolments', [
      head,
      page.json,
      CLOSE_BRACE,
    ]);
    sentAny = true;
    const counts =
      job.section === 'roster'
        ? readRosterAnswer(ctx, job, page, answer)
        : readEnrolmentsAnswer(ctx, job, page, answer);
    addCounts(totals, counts);
    const runId = typeof answer.run_id === 'string' && answer.run_id ? answer.run_id : undefined;
    if (runId) totals.runIds.push(runId);
    if (!ctx.dryRun) ctx.state.recordPage(job.stream, { n: page.n, rows: page.count, hash, counts, runId });
    ctx.progress.page(rowsSoFar, page.n, false);
    ctx.afterPage?.();
  }
  if (syncId && !sentAny && totals.pages === 0) {
    throw new PushStopped(
      `${job.file}: no rows to push; a full sync with nothing in it would depart the whole cohort, so nothing was sent`,
    );
  }
  return totals;
}

function addCounts(totals: SectionTotals, counts: Record<string, number>): void {
  totals.received += counts.received ?? 0;
  totals.created += counts.created ?? 0;
  totals.updated += counts.updated ?? 0;
  totals.unchanged += counts.unchanged ?? 0;
  totals.rejected += counts.rejected ?? 0;
  totals.deferred += counts.deferred ?? 0;
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const arr = (v: unknown) => (Array.isArray(v) ? v : []);

const CLOSE_BRACE = Buffer.from('}');

/** The rows of a page as the request carried them (read only when the answer has row errors). */
function sentRows(page: Page): (Record<string, unknown> | undefined)[] {
  return plannedReference.rowsOf(page);
}

/** The file and line of a row the answer names by its position in the page. */
function origin(page: Page, row: unknown): RowOrigin {
  return (typeof row === 'number' && page.origin(row)) || { file: page.origin(0)?.file ?? '?', line: 0 };
}

function readRosterAnswer(
  ctx: PushContext,
  job: SectionJob,
  page: Page,
  answer: Record<string, unknown>,
): Record<string, number> {
  // A row naming a student without an email is rejected as expected (the no_email finding
  // reported them): neither an error here nor a row received.
  const errors = (arr(answer.errors) as { row?: unknown; message?: unknown }[]).filter(
    (e) => !(typeof e.row === 'number' && page.namesOnly(e.row)),
  );
  const sent = errors.length ? sentRows(page) : [];
  for (const e of errors as { row?: unknown; message?: unknown; code?: unknown; field?: unknown }[]) {
    ctx.report.rowError(
      origin(page, e.row),
      'roster',
      typeof e.code === 'string' ? e.code : 'rejected',
      String(e.message ?? ''),
      typeof e.field === 'string' ? e.field : '',
      typeof e.row === 'number' ? sent[e.row] : undefined,
    );
  }
  const report = ctx.report;
  for (const u of arr(answer.unknown_program_codes) as { value: string; rows: number[] }[]) {
    report.addValue(
      report.unknownPrograms,
      u.value,
      arr(u.rows).map((r) => origin(page, r)),
    );
  }
  for (const u of arr(answer.unknown_campus_values) as { value: string; rows: number[] }[]) {
    report.addValue(
      report.unknownCampuses,
      u.value,
      arr(u.rows).map((r) => origin(page, r)),
    );
  }
  for (const key of ['duplicate_emails', 'duplicate_student_id_exts']) {
    for (const u of arr(answer[key]) as { value: string; rows: number[] }[]) {
      report.addValue(
        report.duplicates,
        u.value,
        arr(u.rows).map((r) => origin(page, r)),
      );
    }
  }
  // A real push answers the same findings in `warnings` (a dry run has both): shown alike.
  if (!ctx.dryRun) {
    for (const w of arr(answer.warnings) as { code?: string; value: string; rows: number[] }[]) {
      const into =
        w.code === 'unknown_program_code'
          ? report.unknownPrograms
          : w.code === 'unknown_campus'
            ? report.unknownCampuses
            : undefined;
      if (into)
        report.addValue(
          into,
          String(w.value),
          arr(w.rows).map((r) => origin(page, r)),
        );
    }
  }
  for (const d of arr(answer.bad_dates) as { row: number; value: string }[])
    report.badDate(origin(page, d.row), d.value);
  const fullSync = answer.full_sync as Record<string, unknown> | undefined;
  if (fullSync?.final_page) report.fullSyncs.push({ ...fullSync, cohort: job.cohortId });
  const received = num(answer.received) - page.naming;
  if (ctx.dryRun) {
    return {
      received,
      created: num(answer.would_create),
      updated: num(answer.would_update),
      rejected: errors.length,
    };
  }
  return { received, created: num(answer.created), updated: num(answer.updated), rejected: errors.length };
}

function readEnrolmentsAnswer(
  ctx: PushContext,
  job: SectionJob,
  page: Page,
  answer: Record<string, unknown>,
): Record<string, number> {
  const errors = arr(answer.errors) as {
    row?: unknown;
    code?: unknown;
    message?: unknown;
    field?: unknown;
  }[];
  const sent = errors.length ? sentRows(page) : [];
  const rows = ctx.planned && errors.length ? sent : undefined;
  const deferredRows = new Set<unknown>();
  const failedRows = new Set<unknown>();
  for (const e of errors) {
    // A dry run's reference to a term, unit, program, campus or student that an earlier section
    // of this same push would create: one line in the report, not a row error (would-create.ts).
    if (rows && plannedReference.explains(ctx.planned!, rows, e)) {
      ctx.report.deferred(job.section, String(e.code));
      deferredRows.add(e.row);
      continue;
    }
    failedRows.add(e.row);
    ctx.report.rowError(
      origin(page, e.row),
      job.section,
      String(e.code ?? 'rejected'),
      String(e.message ?? ''),
      typeof e.field === 'string' ? e.field : '',
      typeof e.row === 'number' ? sent[e.row] : undefined,
    );
  }
  const s = (answer.sections as Record<string, Record<string, unknown>> | undefined)?.[job.section] ?? {};
  return {
    received: num(s.received),
    created: num(s.created),
    updated: num(s.updated),
    unchanged: num(s.unchanged),
    rejected: num(s.rejected),
    // Rows rejected only for references to this push; a row with another error too is rejected.
    deferred: [...deferredRows].filter((row) => !failedRows.has(row)).length,
  };
}
