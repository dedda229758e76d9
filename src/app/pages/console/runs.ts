// Push history (admins): every roster and enrolments run with filters (feed, day the run started,
// with errors; the domain applies them to the whole history), a chart of the last 30 days
// (created, updated, errors) drawn by uPlot from the numbers also shown in a table, and a run's
// page with its row errors and warnings as a table and a CSV file.
//
// Every page calls the push history's domain functions with the request's institution, as the
// admin API does.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { dailyRuns, getRun, listRuns, runOrder, studentNamesOf } from '../../../domain/runs/runs.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { timesIn } from './institution-time.ts';
import { CursorParam, readListing } from './listing.ts';
import { chartDays, chartSpan, runCsvRows, runFilters, runsView, runView, toCsv } from './runs-view.ts';

const RunParams = Type.Object({ slug: Type.String(), runId: Type.String({ format: 'uuid' }) });
const RunsQuery = Type.Object({
  kind: Type.Optional(Type.String({ maxLength: 20 })),
  day: Type.Optional(Type.String({ maxLength: 10 })),
  errors: Type.Optional(Type.String({ maxLength: 5 })),
  cursor: CursorParam,
});

export function runRoutes(app: App): void {
  const pageOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/runs`;

  app.get(
    '/:slug/runs',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams, querystring: RunsQuery } },
    async (request) => {
      const institutionId = institutionOf(request).id;
      const filters = runFilters(request.query);
      const span = chartSpan(request.deps.clock.now());
      // The chart: the runs started on each of the last 30 days, summed by the domain, by the
      // same day as the day filter, so a day's bar and that day's filtered list agree.
      const [daily, listing] = await Promise.all([
        dailyRuns(request.deps.db, institutionId, { kind: filters.kind, ...span }),
        readListing(runOrder, { cursor: request.query.cursor, size: 50 }, (page) =>
          listRuns(request.deps.db, institutionId, {
            ...page,
            kind: filters.kind,
            from: filters.day,
            to: filters.day,
            hasErrors: filters.errors,
          }),
        ),
      ]);
      const view = runsView(listing, chartDays(span.from, daily), filters, pageOf(request));
      return ctx(request).render('console/runs.eta', view);
    },
  );

  app.get(
    '/:slug/runs/:runId',
    { config: { access: 'admin' }, schema: { hide: true, params: RunParams } },
    async (request) => {
      const institution = institutionOf(request);
      const run = await getRun(request.deps.db, institution.id, request.params.runId);
      // Each error's student by name beside the keys it was sent with, where the student is stored.
      const names = await studentNamesOf(request.deps.db, institution.id, run.errors);
      return ctx(request).render(
        'console/run.eta',
        runView(run, pageOf(request), timesIn(institution.time_zone), names),
      );
    },
  );

  app.get(
    '/:slug/runs/:runId/errors.csv',
    { config: { access: 'admin' }, schema: { hide: true, params: RunParams } },
    async (request, reply) => {
      // A run keeps at most 1000 row errors: the file is built whole.
      const run = await getRun(request.deps.db, institutionOf(request).id, request.params.runId);
      const names = await studentNamesOf(request.deps.db, institutionOf(request).id, run.errors);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${run.id}-errors.csv"`)
        .header('cache-control', 'no-store')
        .send(toCsv(runCsvRows(run, names), ['kind', 'row', 'message']));
    },
  );
}
