// Push history (admins): every roster and enrolments run with filters (feed, day the run started,
// with errors; the API applies them to the whole history),
// a chart of the last 30 days (created, updated, errors) drawn by uPlot from the numbers also
// shown in a table, and a run's page with its row errors and warnings as a table and a CSV file.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { query } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { when } from './forms.ts';
import { CursorParam, listPage } from './listing.ts';

const DAY_MS = 86_400_000;
const Params = Type.Object({ slug: Type.String() });
const RunParams = Type.Object({ slug: Type.String(), runId: Type.String({ format: 'uuid' }) });
const RunsQuery = Type.Object({
  kind: Type.Optional(Type.String({ maxLength: 20 })),
  day: Type.Optional(Type.String({ maxLength: 10 })),
  errors: Type.Optional(Type.String({ maxLength: 5 })),
  cursor: CursorParam,
});

interface RunSummary {
  id: string;
  kind: string;
  dry_run: boolean;
  received: number;
  counts: Record<string, unknown>;
  error_count: number;
  started_at: string;
  finished_at: string;
}

interface Day {
  day: string;
  pushes: number;
  created: number;
  updated: number;
  errors: number;
}

const num = (value: unknown) => (typeof value === 'number' ? value : 0);

/** Rows as CSV (RFC 4180 quoting; cells that a spreadsheet would run as formulas are quoted). */
export function toCsv(rows: Record<string, unknown>[], fallback: string[] = []): string {
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

export function runRoutes(app: App, services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}/runs`, page: `/console/${slug}/runs` };
  };

  app.get(
    '/:slug/runs',
    { config: { access: 'admin' }, schema: { hide: true, params: Params, querystring: RunsQuery } },
    async (request) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      const q = request.query;
      const kind = q.kind === 'roster' || q.kind === 'enrolments' ? q.kind : undefined;
      const day = q.day && /^\d{4}-\d{2}-\d{2}$/.test(q.day) ? q.day : undefined;
      const withErrors = q.errors === 'yes';
      const now = services.clock.now();
      const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 29 * DAY_MS;
      const firstDay = new Date(start).toISOString().slice(0, 10);
      const today = new Date(start + 29 * DAY_MS).toISOString().slice(0, 10);
      // The chart: the runs started on each of the last 30 days, summed by the API, by the same
      // day as the day filter, so a day's bar and that day's filtered list agree.
      const [daily, listing] = await Promise.all([
        c.api.get<{ items: Day[] }>(`${api}/daily${query({ kind, from: firstDay, to: today })}`),
        listPage<RunSummary>(
          c.api,
          api,
          { kind, from: day, to: day, has_errors: withErrors },
          { cursor: q.cursor, size: 50 },
        ),
      ]);
      const byDay = new Map(daily.items.map((d) => [d.day, d]));
      const days: Day[] = [];
      for (let i = 0; i < 30; i += 1) {
        const date = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
        days.push(byDay.get(date) ?? { day: date, pushes: 0, created: 0, updated: 0, errors: 0 });
      }
      return c.render('console/runs.eta', {
        title: 'Push history',
        chart: true,
        days,
        items: listing.items,
        listing,
        filters: { kind, day, errors: withErrors },
        self: `${page}?${new URLSearchParams({ ...(kind ? { kind } : {}), ...(day ? { day } : {}), ...(withErrors ? { errors: 'yes' } : {}) })}`,
        when,
        num,
      });
    },
  );

  const readRun = async (request: FastifyRequest & { params: { runId: string } }) => {
    const c = ctx(request);
    const run = await c.api.get<
      RunSummary & {
        errors: Record<string, unknown>[];
        errors_truncated: boolean;
        details: Record<string, unknown>;
      }
    >(`${paths(request).api}/${request.params.runId}`);
    const warnings = Array.isArray(run.details?.warnings)
      ? (run.details.warnings as Record<string, unknown>[])
      : [];
    return { run, warnings };
  };

  app.get(
    '/:slug/runs/:runId',
    { config: { access: 'admin' }, schema: { hide: true, params: RunParams } },
    async (request) => {
      const { run, warnings } = await readRun(request);
      const columns = [...new Set(run.errors.flatMap((e) => Object.keys(e ?? {})))];
      return ctx(request).render('console/run.eta', {
        title: `${run.kind === 'roster' ? 'Roster' : 'Enrolments'} push of ${when(run.finished_at)}`,
        run,
        columns,
        warnings,
        back: paths(request).page,
        when,
      });
    },
  );

  app.get(
    '/:slug/runs/:runId/errors.csv',
    { config: { access: 'admin' }, schema: { hide: true, params: RunParams } },
    async (request, reply) => {
      const { run, warnings } = await readRun(request);
      const rows = [
        ...run.errors.map((e) => ({ kind: 'error', ...(typeof e === 'object' ? e : { message: e }) })),
        ...warnings.map((w) => ({ kind: 'warning', ...(typeof w === 'object' ? w : { message: w }) })),
      ];
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${run.id}-errors.csv"`)
        .header('cache-control', 'no-store')
        .send(toCsv(rows, ['kind', 'row', 'message']));
    },
  );
}
