// What the push-history pages show, built from the push history's own types by pure functions:
// the filters a URL gives, the 30 days of the chart (a day without runs drawn as zeros), the
// list, a run's page with its row errors as a table, and its errors and warnings as CSV.
import type { DailyRuns, Run, RunKind, RunSummary } from '../../../domain/runs/schemas.ts';
import { when } from './forms.ts';
import type { Listing } from './listing.ts';
import { countsView, runTotals } from './run-counts.ts';
import { warningSentence } from './run-warnings.ts';

const DAY_MS = 86_400_000;
/** Days the chart draws, today included. */
export const CHART_DAYS = 30;

export interface RunFilters {
  kind?: RunKind;
  /** One UTC day, YYYY-MM-DD. */
  day?: string;
  /** Only runs with row errors. */
  errors: boolean;
}

/** The filters of a push-history URL; a value the form does not offer is no filter. */
export function runFilters(query: { kind?: string; day?: string; errors?: string }): RunFilters {
  return {
    kind:
      query.kind === 'roster' || query.kind === 'enrolments' || query.kind === 'oneroster'
        ? query.kind
        : undefined,
    day: query.day && /^\d{4}-\d{2}-\d{2}$/.test(query.day) ? query.day : undefined,
    errors: query.errors === 'yes',
  };
}

/** The first and last day (UTC, YYYY-MM-DD) of the chart ending today. */
export function chartSpan(now: Date): { from: string; to: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: iso(today - (CHART_DAYS - 1) * DAY_MS), to: iso(today) };
}

/** Every day of the chart from its first, each with its sums or zeros. */
export function chartDays(from: string, daily: readonly DailyRuns[]): DailyRuns[] {
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const start = Date.parse(`${from}T00:00:00Z`);
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
    return (
      byDay.get(day) ?? { day, pushes: 0, created: 0, updated: 0, errors: 0, dry_runs: 0, dry_run_errors: 0 }
    );
  });
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);

/**
 * The columns of a run's errors, in one order whatever the order the stored JSON gives: where
 * the row is, the keys it was sent with, then what is wrong; any other field after.
 */
export const errorColumnOrder = [
  'section',
  'line',
  'row',
  'email',
  'student_id_ext',
  'student',
  'unit_code',
  'term_code',
  'code',
  'field',
  'message',
];

/** What the run page calls a column of its errors (and a field one names): words, not keys. */
const columnWords: Record<string, string> = {
  section: 'Section',
  line: 'Line',
  row: 'Row',
  email: 'Email',
  student_id_ext: 'Student ID',
  student: 'Student',
  unit_code: 'Unit code',
  term_code: 'Term code',
  program_code: 'Program code',
  field: 'Field',
  message: 'Problem',
};

/** A column's or a field's name in words ("student_id_ext": "Student ID"; any other: "Start date"). */
export function columnLabel(key: string): string {
  const known = columnWords[key];
  if (known) return known;
  const text = key.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function orderedColumns(rows: readonly unknown[], first: readonly string[] = []): string[] {
  const found = new Set(rows.flatMap((row) => Object.keys(row ?? {})));
  // Rows that carry their line (src/domain/runs/lines.ts) are numbered by it alone: one numbering.
  if (found.has('line')) found.delete('row');
  const known = [...first, ...errorColumnOrder].filter((c) => found.delete(c));
  return [...new Set(known), ...found];
}

/** How long a push took, from its start to its record: "0.4 s", "12 s", "3 min 5 s". */
export function duration(startedAt: Date | string, finishedAt: Date | string): string {
  const ms = Math.max(0, new Date(finishedAt).getTime() - new Date(startedAt).getTime());
  if (Number.isNaN(ms)) return '';
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Whether a roster run was a page of a full sync (its counts carry the sync's report), and which. */
function fullSyncPage(counts: Record<string, unknown>): 'final' | 'page' | undefined {
  const sync = counts.full_sync;
  if (typeof sync !== 'object' || sync === null) return undefined;
  return (sync as { final_page?: unknown }).final_page === true ? 'final' : 'page';
}

/** The push-history list's mark of a full-sync page: "full sync", "full sync, final page". */
export function fullSyncLabel(counts: Record<string, unknown>): string | undefined {
  const page = fullSyncPage(counts);
  return page && (page === 'final' ? 'full sync, final page' : 'full sync');
}

/** The run page's words for a full-sync page: "the final page of the full sync nightly-1 (applied)". */
function fullSyncSentence(counts: Record<string, unknown>): string | undefined {
  const page = fullSyncPage(counts);
  if (!page) return undefined;
  const { sync_id, status } = counts.full_sync as { sync_id?: unknown; status?: unknown };
  const name = typeof sync_id === 'string' ? ` ${sync_id}` : '';
  const state = typeof status === 'string' ? ` (${status})` : '';
  return `${page === 'final' ? 'the final page' : 'a page'} of the full sync${name}${state}`;
}

/** The push-history page. */
export function runsView(listing: Listing<RunSummary>, days: DailyRuns[], filters: RunFilters, page: string) {
  const search = new URLSearchParams({
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(filters.day ? { day: filters.day } : {}),
    ...(filters.errors ? { errors: 'yes' } : {}),
  });
  return {
    title: 'Push history',
    chart: true,
    days,
    items: listing.items,
    listing,
    filters,
    self: `${page}?${search}`,
    when,
    num,
    duration,
    fullSyncLabel,
    runTotals,
    dryRuns: days.reduce((sum, d) => sum + d.dry_runs, 0),
  };
}

type Row = Record<string, unknown>;

/** A run's warnings (kept in its details by the feed), as rows. */
function warningsOf(run: Run): unknown[] {
  return Array.isArray(run.details?.warnings) ? run.details.warnings : [];
}

/**
 * A run's page: its counts, its row errors as a table (a column per field), its warnings; its
 * title's time written by `time` (the institution's zone on the console).
 */
export function runView(
  run: Run,
  back: string,
  time: (value: unknown) => string = when,
  nameOf: (row: unknown) => string | undefined = () => undefined,
) {
  const errors = named(run.errors, nameOf);
  return {
    title:
      run.kind === 'oneroster'
        ? `OneRoster pull of ${time(run.finished_at)}`
        : `${run.kind === 'roster' ? 'Roster' : 'Enrolments'} push of ${time(run.finished_at)}`,
    run: { ...run, errors },
    counts: countsView(run.counts, fullSyncSentence(run.counts) ? ['full_sync'] : []),
    // The code of each error is for programs: the page says it in words, the CSV keeps the code.
    columns: orderedColumns(errors).filter((c) => c !== 'code'),
    columnLabel,
    warnings: warningsOf(run).map(warningSentence),
    duration: duration(run.started_at, run.finished_at),
    fullSync: fullSyncSentence(run.counts),
    back,
    when,
  };
}

/** Rows with their student's stored name beside their keys, where one is known. */
function named(rows: readonly unknown[], nameOf: (row: unknown) => string | undefined): unknown[] {
  return rows.map((row) => {
    const name = nameOf(row);
    return name && typeof row === 'object' && row !== null ? { ...row, student: name } : row;
  });
}

/** A run's errors then its warnings, as the rows of its CSV file (each error with its student's name). */
export function runCsvRows(run: Run, nameOf: (row: unknown) => string | undefined = () => undefined): Row[] {
  const row = (kind: string, value: unknown): Row => ({
    kind,
    ...(typeof value === 'object' ? (value as Row) : { message: value }),
  });
  // A warning's message is its sentence, naming the rows as the run page does.
  const warning = (w: unknown) =>
    typeof w === 'object' && w !== null ? { ...w, message: warningSentence(w) } : w;
  return [
    ...named(run.errors, nameOf).map((e) => row('error', e)),
    ...warningsOf(run).map((w) => row('warning', warning(w))),
  ];
}

/** Rows as CSV (RFC 4180 quoting; cells that a spreadsheet would run as formulas are quoted). */
export function toCsv(rows: Row[], fallback: string[] = []): string {
  const found = orderedColumns(rows, ['kind']);
  const columns = found.length ? found : fallback;
  const cell = (value: unknown) => {
    let text =
      value === null || value === undefined
        ? ''
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return (
    [columns.map(cell).join(','), ...rows.map((row) => columns.map((c) => cell(row[c])).join(','))].join(
      '\r\n',
    ) + '\r\n'
  );
}
