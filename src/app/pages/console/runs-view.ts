// What the push-history pages show, built from the push history's own types by pure functions:
// the filters a URL gives, the 30 days of the chart (a day without runs drawn as zeros), the
// list, a run's page with its row errors as a table, and its errors and warnings as CSV.
import type { DailyRuns, Run, RunKind, RunSummary } from '../../../domain/runs/schemas.ts';
import { when } from './forms.ts';
import type { Listing } from './listing.ts';

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
    return byDay.get(day) ?? { day, pushes: 0, created: 0, updated: 0, errors: 0 };
  });
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);

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
export function runView(run: Run, back: string, time: (value: unknown) => string = when) {
  const columns = [...new Set(run.errors.flatMap((e) => Object.keys(e ?? {})))];
  return {
    title:
      run.kind === 'oneroster'
        ? `OneRoster pull of ${time(run.finished_at)}`
        : `${run.kind === 'roster' ? 'Roster' : 'Enrolments'} push of ${time(run.finished_at)}`,
    run,
    columns,
    warnings: warningsOf(run),
    back,
    when,
  };
}

/** A run's errors then its warnings, as the rows of its CSV file. */
export function runCsvRows(run: Run): Row[] {
  const row = (kind: string, value: unknown): Row => ({
    kind,
    ...(typeof value === 'object' ? (value as Row) : { message: value }),
  });
  return [...run.errors.map((e) => row('error', e)), ...warningsOf(run).map((w) => row('warning', w))];
}

/** Rows as CSV (RFC 4180 quoting; cells that a spreadsheet would run as formulas are quoted). */
export function toCsv(rows: Row[], fallback: string[] = []): string {
  const found = [...new Set(rows.flatMap((row) => Object.keys(row)))];
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
