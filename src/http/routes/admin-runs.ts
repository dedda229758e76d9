// Admin API: the history of SIS pushes (roster and enrolments runs).
import { Type } from 'typebox';
import { runOrder } from '../../domain/runs/runs.ts';
import type { Services } from '../../services.ts';
import { institutionOf } from '../plugins/admin-scope.ts';
import {
  CursorQuery,
  DateTime,
  errorResponses,
  Nullable,
  Page,
  pageOf,
  pageReply,
  SlugParams,
  Uuid,
} from '../schemas.ts';
import type { App } from '../types.ts';

const RunKind = Type.Union([Type.Literal('roster'), Type.Literal('enrolments')]);

const RunSummary = Type.Object({
  id: Uuid(),
  kind: RunKind,
  credential: Type.Union([Type.Literal('institution_secret'), Type.Literal('bootstrap_secret')], {
    description: 'Which kind of secret authenticated the push',
  }),
  cohort_id: Nullable(Uuid('Roster runs: the cohort pushed')),
  sections: Type.Array(Type.String(), { description: 'Enrolments runs: the sections the request carried' }),
  dry_run: Type.Boolean(),
  received: Type.Integer({ description: 'Rows received, all sections together' }),
  counts: Type.Record(Type.String(), Type.Unknown(), { description: 'The counts the response reported' }),
  error_count: Type.Integer(),
  started_at: DateTime(),
  finished_at: DateTime(),
});

const Run = Type.Intersect([
  RunSummary,
  Type.Object({
    errors: Type.Array(Type.Unknown(), {
      description: 'Row errors as the response reported them (first 1000)',
    }),
    errors_truncated: Type.Boolean(),
    details: Type.Record(Type.String(), Type.Unknown()),
  }),
]);

export function adminRunRoutes(app: App, services: Services): void {
  const { runs } = services;
  const tags = ['admin'];
  const security = [{ operatorToken: [] }];

  app.get(
    '/admin/v1/institutions/:slug/runs',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'List SIS push runs, newest first',
        params: SlugParams,
        querystring: Type.Intersect([CursorQuery, Type.Object({ kind: Type.Optional(RunKind) })]),
        response: { 200: Page(RunSummary), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      pageReply(
        runOrder,
        await runs.list(institutionOf(request).id, {
          ...pageOf(runOrder, request.query),
          kind: request.query.kind,
        }),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/runs/:runId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Read one run with its row errors',
        params: Type.Intersect([SlugParams, Type.Object({ runId: Type.String() })]),
        response: { 200: Run, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const institution = institutionOf(request);
      return runs.get(institution.id, request.params.runId);
    },
  );
}
