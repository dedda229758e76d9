// Admin API: the institution's OneRoster source (a OneRoster 1.2 REST provider the service
// pulls) and "Sync now". The pull history is the push history's runs of kind `oneroster`
// (GET /admin/v1/institutions/{slug}/runs?kind=oneroster). docs/oneroster.md.
import { type Static, Type } from 'typebox';
import { pullNow } from '../../../domain/oneroster/pull/pull.ts';
import { Choices, SourceBody } from '../../../domain/oneroster/pull/schemas.ts';
import type { SourceSettings } from '../../../domain/oneroster/pull/sources.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminSecurity,
  DateTime,
  errorResponses,
  Nullable,
  SlugParams,
  StringEnum,
  Uuid,
} from '../schemas.ts';

const Source = Type.Object({
  id: Uuid(),
  base_url: Type.String({ description: 'The rostering base URL (…/ims/oneroster/rostering/v1p2)' }),
  token_url: Type.String(),
  client_id: Type.String(),
  client_secret_set: Type.Literal(true, {
    description: 'The client secret is stored (encrypted); it is never returned',
  }),
  ...Choices,
  next_pull_at: Nullable(DateTime()),
  delta_since: Nullable(DateTime('Delta pulls ask for records modified after this')),
  last_full_at: Nullable(DateTime()),
  failure_count: Type.Integer({ description: 'Pulls failed in a row' }),
  last_error: Nullable(Type.String()),
  failing_since: Nullable(DateTime()),
  last_pull_at: Nullable(DateTime()),
  last_success_at: Nullable(DateTime()),
  pulling: Type.Boolean({ description: 'A pull is under way' }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const SectionCounts = Type.Record(Type.String(), Type.Unknown());

const PullBody = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(
        ['full', 'delta'],
        'full: everything, and students the provider no longer lists depart (held above the threshold); delta: records ' +
          'modified since the last good pull. Default: as the schedule would choose',
      ),
    ),
  },
  { additionalProperties: false },
);

const PullOutcome = Type.Object({
  run_id: Uuid('The pull in the push history (GET …/runs/{run_id})'),
  mode: StringEnum(['full', 'delta']),
  status: StringEnum(['ok', 'failed'], 'failed: the provider failed; nothing was changed'),
  error: Nullable(Type.String()),
  sections: SectionCounts,
  error_count: Type.Integer({
    description: 'Row errors; each names the OneRoster record (collection, sourcedId)',
  }),
  notes: Type.Array(Type.String()),
  full_sync: Type.Optional(Type.Unknown()),
});

export function adminOneRosterSourceRoutes(app: App, services: Services): void {
  const { oneRosterSources, oneRosterPull } = services;
  const tags = ['admin: OneRoster source'];
  const security = adminSecurity;
  const path = '/admin/v1/institutions/:slug/oneroster-source';

  app.get(
    path,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: "Read the institution's OneRoster source (without its client secret)",
        params: SlugParams,
        response: { 200: Source, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => oneRosterSources.get(institutionOf(request).id),
  );

  app.put(
    path,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Configure the OneRoster 1.2 REST provider the service pulls',
        description:
          'Both URLs pass the outbound URL guard (https; no private, loopback, link-local or metadata address), now and on ' +
          'every request of every pull: a refused URL is 400 url_not_allowed naming the field. The client secret is stored ' +
          'encrypted and never returned. With pull_every_minutes the worker pulls on that schedule (the first pull at once).',
        params: SlugParams,
        body: SourceBody,
        response: { 200: Source, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      oneRosterSources.put(
        institutionOf(request).id,
        request.body as Static<typeof SourceBody> as SourceSettings,
        services.clock.now(),
      ),
  );

  app.delete(
    path,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary:
          'Remove the OneRoster source (stored students and enrolments stay; its pulls stay in the history)',
        params: SlugParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await oneRosterSources.remove(institutionOf(request).id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${path}/pulls`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Sync now: pull the OneRoster source and apply it',
        description:
          'Reads the provider whole (paging with limit/offset and X-Total-Count; 429 Retry-After and 5xx backoff; an expired ' +
          'token renewed once), then applies it as the feeds would. A provider that fails leaves the stored data as it was: ' +
          'the answer is then status failed with the reason. 409 pull_in_progress while another pull of the source runs.',
        params: SlugParams,
        body: Type.Optional(PullBody),
        response: { 200: PullOutcome, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      pullNow(
        oneRosterPull,
        institutionOf(request).id,
        (request.body as Static<typeof PullBody> | undefined)?.mode,
      ),
  );
}
