// One push from start to end: files checked, pages sent section after section in dependency
// order, the report printed, and the exit code set. Everything that stops a push ends here
// with a one-line reason (and, when pages were already answered, how to resume).

import { CsvFileError } from './csv-source.ts';
import { createFeedClient, type FeedPost, FeedRequestError } from './feed-client.ts';
import type { Items } from './pages.ts';
import { createProgress, type Output, type Progress } from './progress.ts';
import { PushReport } from './report.ts';
import { type PushContext, PushStopped, pushSection, type Section } from './send.ts';
import { PushState } from './state.ts';

/** Exit codes (docs/ssp-push.md). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_ROWS_REJECTED = 2;

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
  const fail = (message: string) => {
    progress.stop();
    err.write(`ssp push: ${message}\n`);
    return EXIT_FAILED;
  };
  if (!options.secret) {
    return fail(
      'no feed secret: set SSP_ROSTER_SECRET (or pass --secret, which other users of this machine can see)',
    );
  }
  let state: PushState;
  try {
    state = PushState.open(options.dryRun ? undefined : options.statePath, options.key, {
      restart: options.restart,
    });
  } catch (error) {
    return fail((error as Error).message);
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
  const ctx: PushContext = {
    post: createFeedClient({
      url: options.url,
      secret: options.secret,
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
  let prepared: Prepared | undefined;
  let code = EXIT_OK;
  try {
    prepared = await prepare(progress, ctx.post);
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
    const known =
      error instanceof CsvFileError || error instanceof FeedRequestError || error instanceof PushStopped;
    // Anything unexpected keeps its stack: it is a defect to report, not a file to fix.
    err.write(`ssp push: ${known ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    if (!options.dryRun && state.pagesDone() > 0) {
      err.write(
        `ssp push: ${state.pagesDone()} pages were answered and are recorded in ${options.statePath}; ` +
          'run the same command again to resume (--restart starts over)\n',
      );
    }
    code = EXIT_FAILED;
  } finally {
    prepared?.cleanup?.();
    await report.close();
  }
  if (report.sections.length) out.write(report.render());
  if (code !== EXIT_FAILED) state.remove();
  return code;
}
