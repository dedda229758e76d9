// One push from start to end: files checked, pages sent section after section in dependency
// order, the report printed, and the exit code set. Everything that stops a push ends here
// with a one-line reason (and, when pages were already answered, how to resume).

import { EXIT, type ExitCode, exitForStatus } from '../exit-codes.ts';
import { CsvFileError } from './csv-source.ts';
import { createFeedClient, type FeedPost, FeedRequestError } from './feed-client.ts';
import type { Items } from './pages.ts';
import { createProgress, type Output, type Progress } from './progress.ts';
import { PushReport } from './report.ts';
import { reportJson } from './report-json.ts';
import { type PushContext, PushStopped, pushSection, type Section } from './send.ts';
import { PushState } from './state.ts';
import { plannedKeysFor } from './would-create.ts';

/** Exit codes (docs/ssp-push.md, exit-codes.ts). */
export const EXIT_OK = EXIT.ok;
export const EXIT_FAILED = EXIT.failed;
export const EXIT_ROWS_REJECTED = EXIT.rowsRejected;

/** The exit code of what stopped a push. */
function exitFor(error: unknown): ExitCode {
  if (error instanceof PushStopped) return error.exitCode;
  if (error instanceof CsvFileError) return EXIT.refused;
  if (error instanceof FeedRequestError) return exitForStatus(error.status);
  return EXIT.failed;
}

export interface PushOptions {
  url: string;
  secret: string | undefined;
  dryRun: boolean;
  errorsPath: string;
  statePath: string;
  restart: boolean;
  pageSize?: number;
  attempts: number;
  /** Names the push for the resume state: same key, same push. */
  key: string;
  io: PushIo;
  /** Called after each page answered (heap.ts). */
  afterPage?: () => void;
  /** --json: the report as JSON on stdout (report-json.ts). */
  json?: boolean;
  /** Ctrl-C stops the push cleanly (the ssp process only; interrupt.ts). */
  onInterrupt?: (stop: () => Promise<void>) => () => void;
}

/** Where a push writes; the process's streams, or a test's. */
export interface PushIo {
  out: Output;
  err: Output;
  env: Record<string, string | undefined>;
}

export type { Output };

export interface PushJob {
  section: Section;
  stream: string;
  label: string;
  file: string;
  size?: number;
  cohortId?: string;
  institution?: string;
  fullSync?: { syncId?: string };
  items: () => Items;
}

export interface Prepared {
  jobs: PushJob[];
  notes?: () => string[];
  cleanup?: () => void;
  /** Called when the push ran to its end (exit 0 or 2). */
  done?: () => void | Promise<void>;
}

/** How to resume after a stop, when pages were answered and recorded. */
function resumeHint(options: PushOptions, state: PushState): string | undefined {
  if (options.dryRun || state.pagesDone() === 0) return undefined;
  return (
    `${state.pagesDone()} pages were answered and are recorded in ${options.statePath}; ` +
    'run the same command again to resume (--restart starts over)'
  );
}

/**
 * Runs a push. `prepare` opens and checks the files (every header is checked before the first
 * request); its errors are reported like any other stop. Returns the exit code.
 */
export async function runPush(
  options: PushOptions,
  /** `post` reaches the service as the feeds do (the same secret, retries and pacing). */
  prepare: (progress: Progress, post: FeedPost) => Promise<Prepared>,
): Promise<number> {
  const { out, err } = options.io;
  const progress = createProgress(err);
  const fail = (message: string, exitCode: ExitCode) => {
    progress.stop();
    err.write(`ssp push: ${message}\n`);
    if (options.json)
      out.write(`${JSON.stringify({ ok: false, exit_code: exitCode, error: message }, null, 2)}\n`);
    return exitCode;
  };
  if (!options.secret) {
    return fail(
      'no feed secret: set SSP_ROSTER_SECRET (or pass --secret, which other users of this machine can see)',
      EXIT.auth,
    );
  }
  let state: PushState;
  try {
    state = PushState.open(options.dryRun ? undefined : options.statePath, options.key, {
      restart: options.restart,
    });
  } catch (error) {
    return fail((error as Error).message, EXIT.refused);
  }
  const report = new PushReport({
    dryRun: options.dryRun,
    errorsPath: options.errorsPath,
    appendErrors: state.resumed,
  });
  if (state.resumed) {
    progress.note(
      `resuming: ${state.pagesDone()} pages were answered before the interruption (${options.statePath})`,
    );
  }
  const ctx = pushContext(options, state, report, progress);
  const release = options.onInterrupt?.(() => reportInterrupted(options, state, report, progress));
  let prepared: Prepared | undefined;
  let code: number = EXIT_OK;
  let stopped: string | undefined;
  try {
    prepared = await prepare(progress, ctx.post);
    ctx.planned = options.dryRun ? plannedKeysFor(prepared.jobs.map((j) => j.section)) : undefined;
    for (const job of prepared.jobs) {
      progress.start(job.label, job.size);
      await pushSection(ctx, { ...job, items: job.items() });
      progress.stop();
    }
    for (const note of prepared.notes?.() ?? []) report.notes.push(note);
    if (options.dryRun && report.sections.some((s) => s.pages > 1)) {
      report.notes.push(
        'A dry run checks each page against the data stored now: rows that an earlier page of the same push ' +
          'would create count as would-create, and with --full-sync the would-depart figure counts only the ' +
          'final page (an upper bound when the roster has several pages).',
      );
    }
    code = report.errorCount > 0 ? EXIT_ROWS_REJECTED : EXIT_OK;
    await prepared.done?.();
  } catch (error) {
    progress.stop();
    code = exitFor(error);
    // Anything unexpected keeps its stack: it is a defect to report, not a file to fix.
    stopped = code === EXIT.failed ? ((error as Error).stack ?? String(error)) : (error as Error).message;
    err.write(`ssp push: ${stopped}\n`);
    const hint = resumeHint(options, state);
    if (hint) err.write(`ssp push: ${hint}\n`);
  } finally {
    release?.();
    prepared?.cleanup?.();
    await report.close();
  }
  const ended = code === EXIT_OK || code === EXIT_ROWS_REJECTED;
  if (options.json) {
    out.write(
      reportJson(report, {
        exitCode: code,
        error: stopped,
        resumeState: !ended && resumeHint(options, state) ? options.statePath : undefined,
      }),
    );
  } else if (report.sections.length) out.write(report.render());
  if (ended) state.remove();
  return code;
}

/**
 * Ctrl-C: the bar stops (cursor and line wrapping restored), the errors CSV is flushed, and the
 * message says how to resume; the page in flight may or may not apply (pages are upserts).
 */
async function reportInterrupted(
  options: PushOptions,
  state: PushState,
  report: PushReport,
  progress: Progress,
): Promise<void> {
  const { out, err } = options.io;
  progress.stop();
  err.write(
    `\nssp push: interrupted. ${resumeHint(options, state) ?? 'Nothing was recorded: run the same command again to start over.'}\n`,
  );
  if (options.json)
    out.write(
      reportJson(report, {
        exitCode: EXIT.interrupted,
        error: 'interrupted',
        resumeState: resumeHint(options, state) && options.statePath,
      }),
    );
  await report.close();
}

function pushContext(
  options: PushOptions,
  state: PushState,
  report: PushReport,
  progress: Progress,
): PushContext {
  return {
    post: createFeedClient({
      url: options.url,
      secret: options.secret!,
      attempts: options.attempts,
      onRetry: ({ attempt, delayMs, reason }) =>
        progress.note(
          `${reason}; retrying in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt + 1} of ${options.attempts})`,
        ),
    }),
    state,
    report,
    progress,
    dryRun: options.dryRun,
    pageSize: options.pageSize,
    afterPage: options.afterPage,
  };
}
