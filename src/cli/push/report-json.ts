// `ssp push --json`: the report as one JSON object on stdout, for scripts and cron. The same
// facts as the tables (report.ts), with every run id the service recorded, and on failure the
// reason and the exit code, so a script never has to parse the human output.
import type { PushReport } from './report.ts';

export interface PushJsonOutcome {
  exitCode: number;
  /** Why the push stopped (exit codes other than 0 and 2). */
  error?: string;
  /** The resume state's file, when pages were answered before a stop. */
  resumeState?: string;
}

export function reportJson(report: PushReport, outcome: PushJsonOutcome): string {
  const values = (map: PushReport['unknownPrograms']) =>
    [...map.values()].map((v) => ({ value: v.value, rows: v.count, first_places: v.where }));
  const body = {
    ok: outcome.exitCode === 0,
    exit_code: outcome.exitCode,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.resumeState ? { resume_state: outcome.resumeState } : {}),
    dry_run: report.dryRun,
    run_ids: report.sections.flatMap((s) => s.runIds),
    sections: report.sections.map((s) => ({
      file: s.file,
      feed: s.label,
      received: s.received,
      [report.dryRun ? 'would_create' : 'created']: s.created,
      [report.dryRun ? 'would_update' : 'updated']: s.updated,
      unchanged: s.unchanged,
      rejected: s.rejected,
      ...(s.deferred ? { rejected_referring_to_this_push: s.deferred } : {}),
      pages: s.pages,
      resumed_pages: s.resumedPages,
      run_ids: s.runIds,
    })),
    row_problems: report.errorCount,
    errors_file: report.errorsFile ?? null,
    warnings: {
      unknown_program_codes: values(report.unknownPrograms),
      unknown_campus_values: values(report.unknownCampuses),
      duplicates: values(report.duplicates),
      bad_dates: { count: report.badDateCount, first: report.badDates },
      referring_to_this_push: report.deferredLines(),
    },
    full_syncs: report.fullSyncs,
    notes: report.notes,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
