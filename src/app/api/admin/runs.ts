// Admin API: the history of SIS pushes (roster and enrolments runs).
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { dailyRuns, getRun, listRuns, runErrors, runOrder } from '../../../domain/runs/runs.ts';
import { DailyRuns, Run, RunKind, RunSummary } from '../../../domain/runs/schemas.ts';
import { csvRow } from '../../../lib/csv.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionListingRoute, institutionRoute } from '../route-helpers.ts';
import { CsvBody, errorResponses, SlugParams } from '../schemas.ts';

const ERRORS_BATCH = 500;
// The keys a row was sent with come last, so that files read by position keep their columns.
const errorColumns = [
  'section',
  'line',
  'row',
  'code',
  'field',
  'message',
  'email',
  'student_id_ext',
  'unit_code',
  'term_code',
] as const;

/** One field of a kept row error (roster and enrolments errors share these names). */
function errorField(error: unknown, field: string): unknown {
  if (!error || typeof error !== 'object') return field === 'message' ? JSON.stringify(error) : null;
  const value = (error as Record<string, unknown>)[field];
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

export function adminRunRoutes(app: App): void {
  const tags = ['admin'];

  institutionListingRoute(app, tags, {
    path: 'runs',
    access: 'admin',
    summary: 'List SIS push runs, newest first',
    description:
      'Filters combine and are exact over the whole history; next_cursor pages through the result (pass ' +
      'the same filters with it). A day that is not a calendar day, or `to` before `from`, is 400 ' +
      'invalid_field naming the field.',
    item: RunSummary,
    filters: Type.Object({
      kind: Type.Optional(RunKind),
      from: Type.Optional(
        Type.String({
          maxLength: 10,
          description: 'First day (YYYY-MM-DD, UTC) on which the run started, inclusive',
          examples: ['2026-11-01'],
        }),
      ),
      to: Type.Optional(
        Type.String({
          maxLength: 10,
          description: 'Last day (YYYY-MM-DD, UTC) on which the run started, inclusive; from=to is one day',
          examples: ['2026-11-30'],
        }),
      ),
      has_errors: Type.Optional(
        Type.Boolean({
          description:
            'true: only runs that reported row errors (error_count > 0); false or absent: every run',
        }),
      ),
    }),
    order: runOrder,
    list: (db, institutionId, page, query) =>
      listRuns(db, institutionId, {
        ...page,
        kind: query.kind,
        from: query.from,
        to: query.to,
        hasErrors: query.has_errors === true,
      }),
  });

  app.get(
    '/admin/v1/institutions/:slug/runs/daily',
    institutionRoute('admin', tags, {
      summary: 'Runs per day: how many, and what they created, updated and refused',
      description:
        'For each UTC day from `from` to `to` (inclusive, at most 366 days) on which runs started: the ' +
        'number of real runs and the sums of what they created and updated (an enrolments push: all its ' +
        'sections; identical rows are not updates) and of their row errors, then the dry runs and their ' +
        "row errors apart. Days without runs are absent. What the console's push-history chart draws.",
      querystring: Type.Object({
        kind: Type.Optional(RunKind),
        from: Type.String({ maxLength: 10, description: 'First day, YYYY-MM-DD (UTC)' }),
        to: Type.String({ maxLength: 10, description: 'Last day, YYYY-MM-DD (UTC), inclusive' }),
      }),
      response: {
        200: Type.Object({ items: Type.Array(DailyRuns) }),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (request) => ({
      items: await dailyRuns(request.deps.db, institutionOf(request).id, {
        kind: request.query.kind,
        from: request.query.from,
        to: request.query.to,
      }),
    }),
  );

  runRoutes(app);
}

/** One run, and its row errors as CSV (read in batches as they are sent). */
function runRoutes(app: App): void {
  const tags = ['admin'];

  app.get(
    '/admin/v1/institutions/:slug/runs/:runId',
    adminRoute('admin', tags, {
      summary: 'Read one run with its row errors',
      params: Type.Intersect([SlugParams, Type.Object({ runId: Type.String() })]),
      response: { 200: Run, ...errorResponses(401, 404) },
    }),
    async (request) => {
      const institution = institutionOf(request);
      return getRun(request.deps.db, institution.id, request.params.runId);
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/runs/:runId/errors.csv',
    adminRoute('admin', tags, {
      summary: "Export a run's row errors as CSV",
      description:
        'The row errors kept with the run (the first 1000; the run says errors_truncated when there were ' +
        'more), one per line: section (enrolments runs), row, code, field, message, then the keys the row was ' +
        'sent with: email, student_id_ext (roster and enrolments), unit_code, term_code (enrolments), empty when ' +
        'absent or unusable, and for runs recorded before errors carried them. RFC 4180, with a ' +
        "header row; cells starting with =, +, -, @, tab or carriage return are prefixed with '.",
      params: Type.Intersect([SlugParams, Type.Object({ runId: Type.String() })]),
      produces: ['text/csv'],
      response: { 200: CsvBody, ...errorResponses(401, 404) },
    }),
    async (request, reply) => {
      const institution = institutionOf(request);
      const { runId } = request.params;
      // The first batch is read before replying, so an unknown run is a 404 rather than an empty file.
      const first = await runErrors(request.deps.db, institution.id, runId, {
        after: 0,
        limit: ERRORS_BATCH,
      });
      async function* lines() {
        yield csvRow(errorColumns);
        let batch = first;
        while (batch.length > 0) {
          yield batch.map(({ error }) => csvRow(errorColumns.map((c) => errorField(error, c)))).join('');
          if (batch.length < ERRORS_BATCH) break;
          const after = batch[batch.length - 1].position;
          batch = await runErrors(request.deps.db, institution.id, runId, { after, limit: ERRORS_BATCH });
        }
      }
      // A stream is piped as it is, past the response schema (which documents the text).
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${runId}-errors.csv"`)
        .send(Readable.from(lines()) as unknown as string);
    },
  );
}
