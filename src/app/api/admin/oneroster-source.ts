// Admin API: the institution's OneRoster source (a OneRoster 1.2 REST provider the service
// pulls) and "Sync now". The pull history is the push history's runs of kind `oneroster`
// (GET /admin/v1/institutions/{slug}/runs?kind=oneroster). docs/oneroster.md.

import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { pullDepsOf, pullNow } from '../../../domain/oneroster/pull/pull.ts';
import { pullStatus, requestPull } from '../../../domain/oneroster/pull/requests.ts';
import { Choices, SourceBody } from '../../../domain/oneroster/pull/schemas.ts';
import {
  getSource,
  putSource,
  removeSource,
  type SourceSettings,
} from '../../../domain/oneroster/pull/sources.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { DateTime, errorResponses, Nullable, SlugParams, StringEnum, Uuid } from '../schemas.ts';

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
  last_error_code: Nullable(
    Type.String({
      description:
        'Why the last pull failed, stable for programs (docs/oneroster.md, "Limits"): page_too_large, pull_too_large, ' +
        'pull_deadline, parse_memory, provider_error, provider_timeout, provider_unreachable, token_failed, …; null while healthy',
    }),
  ),
  failing_since: Nullable(DateTime()),
  last_pull_at: Nullable(DateTime()),
  last_success_at: Nullable(DateTime()),
  pulling: Type.Boolean({ description: 'A pull is under way' }),
  requested_pull: Nullable(
    Type.Object(
      {
        run_id: Uuid(),
        mode: StringEnum(['full', 'delta']),
        requested_at: DateTime(),
      },
      { description: 'A pull Sync now asked for that has not ended (queued, or running when pulling)' },
    ),
  ),
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

/** Sync now's answer as v1 first documented it: the pull ran inside the request. */
const PullOutcome = Type.Object({
  run_id: Uuid('The pull in the push history (GET …/runs/{run_id})'),
  mode: StringEnum(['full', 'delta']),
  status: StringEnum(['ok', 'failed'], 'failed: the provider failed; nothing was changed'),
  error: Nullable(Type.String()),
  error_code: Nullable(
    Type.String({ description: 'Why the pull failed, stable for programs (as last_error_code)' }),
  ),
  sections: SectionCounts,
  error_count: Type.Integer({
    description: 'Row errors; each names the OneRoster record (collection, sourcedId)',
  }),
  notes: Type.Array(Type.String()),
  full_sync: Type.Optional(Type.Unknown()),
});

/**
 * Whether the client asked not to wait (RFC 7240 `Prefer: respond-async`). Sync now ran the pull
 * inside the request when v1 documented it, and a status code never changes within a version
 * (docs/versioning.md): queueing is what a client opts into.
 */
function prefersAsync(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  const values = Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '');
  return values.split(',').some((p) => p.split(';')[0].trim().toLowerCase() === 'respond-async');
}

const PullStatus = Type.Object({
  run_id: Uuid(
    'The pull in the push history once it has ended (GET …/runs/{run_id}); meanwhile its status is at GET …/oneroster-source/pulls/{run_id}',
  ),
  mode: StringEnum(['full', 'delta'], 'Chosen when the pull was asked for'),
  status: StringEnum(
    ['queued', 'running', 'ok', 'failed'],
    'queued: waiting for the worker; running: under way; ok; failed: the provider failed and nothing was changed ' +
      '(queued and running are new since Sync now stopped holding the request)',
  ),
  requested_at: Nullable(DateTime('When Sync now asked for the pull; null once the pull has ended')),
  error: Nullable(Type.String({ description: 'Why the pull failed' })),
  error_code: Nullable(
    Type.String({ description: 'Why the pull failed, stable for programs (as last_error_code)' }),
  ),
  sections: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Counts per section once the pull has ended; empty before',
  }),
  error_count: Type.Integer({
    description:
      'Row errors; each names the OneRoster record (collection, sourcedId). 0 before the pull has ended',
  }),
  notes: Type.Array(Type.String(), { description: 'Notes of the pull once it has ended' }),
  full_sync: Type.Optional(Type.Unknown()),
});

const PullParams = Type.Intersect([SlugParams, Type.Object({ run_id: Type.String() })]);

const tags = ['admin: OneRoster source'];
const path = '/admin/v1/institutions/:slug/oneroster-source';

/** The source's settings: read, configure, remove. */
function sourceRoutes(app: App): void {
  app.get(
    path,
    institutionRoute('integrations', tags, {
      summary: "Read the institution's OneRoster source (without its client secret)",
      response: { 200: Source, ...errorResponses(401, 403, 404) },
    }),
    async (request) => getSource(request.deps.db, institutionOf(request).id),
  );

  app.put(
    path,
    institutionRoute('integrations', tags, {
      summary: 'Configure the OneRoster 1.2 REST provider the service pulls',
      description:
        'Both URLs pass the outbound URL guard (https; no private, loopback, link-local or metadata address), now and on ' +
        'every request of every pull: a refused URL is 400 url_not_allowed naming the field. The client secret is stored ' +
        'encrypted and never returned. With pull_every_minutes the worker pulls on that schedule (the first pull at once).',
      body: SourceBody,
      response: { 200: Source, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) =>
      putSource(
        request.deps,
        institutionOf(request).id,
        request.body as Static<typeof SourceBody> as SourceSettings,
        request.deps.clock.now(),
      ),
  );

  app.delete(
    path,
    institutionRoute('integrations', tags, {
      summary:
        'Remove the OneRoster source (stored students and enrolments stay; its pulls stay in the history)',
      response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
    }),
    async (request, reply) => {
      await removeSource(request.deps.db, institutionOf(request).id);
      return reply.status(204).send(null);
    },
  );
}

/** Sync now (in the request, or queued for the worker) and a queued pull's status. */
function pullRoutes(app: App): void {
  app.post(
    `${path}/pulls`,
    institutionRoute('integrations', tags, {
      summary: 'Sync now: pull the OneRoster source (with Prefer: respond-async, queue it for the worker)',
      description:
        'With `Prefer: respond-async` (RFC 7240; recommended): 202 Accepted at once, `Preference-Applied: ' +
        'respond-async`; the pull is queued for the worker, which starts it at once when it runs in the same process ' +
        "(`npm start`, `ssp serve` with workers) and within its poll interval (15 s) otherwise. `Location` is the pull's " +
        'status (GET …/oneroster-source/pulls/{run_id}): queued, running, then the outcome; the pull is recorded ' +
        'under `run_id` in the push history (kind oneroster, trigger pull) when it ends.\n\n' +
        'Without it, as v1 first documented: the pull runs inside the request and the answer (200) is its outcome; a ' +
        'large roster holds the request for a minute or more, past the time limits of many proxies.\n\n' +
        '409 pull_in_progress while a pull of the source is queued or under way; 409 cohort_archived when the cohort ' +
        'it pulls into is archived.\n\n' +
        'The pull reads the provider whole (paging with limit/offset and X-Total-Count; 429 Retry-After and 5xx ' +
        'backoff; an expired token renewed once), then applies it as the feeds would. A provider that fails leaves ' +
        'the stored data as it was: the pull then ends with status failed and the reason.',
      body: Type.Optional(PullBody),
      response: { 200: PullOutcome, 202: PullStatus, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request, reply) => {
      const institution = institutionOf(request);
      const mode = (request.body as Static<typeof PullBody> | undefined)?.mode;
      if (!prefersAsync(request)) return pullNow(pullDepsOf(request.deps), institution.id, mode);
      // Queued, and this process's pull worker woken (requests.ts).
      const asked = await requestPull(request.deps, institution.id, mode);
      return reply
        .status(202)
        .header('preference-applied', 'respond-async')
        .header(
          'location',
          `/admin/v1/institutions/${institution.slug}/oneroster-source/pulls/${asked.run_id}`,
        )
        .send(asked);
    },
  );

  app.get(
    `${path}/pulls/:run_id`,
    adminRoute('integrations', tags, {
      summary: 'A pull asked for by Sync now: queued, running, or its outcome',
      description:
        'Poll the `Location` of Sync now. Once the pull has ended this is its outcome (also the run `run_id` ' +
        'of the push history); any pull of the source can be read by its run id.',
      params: PullParams,
      response: { 200: PullStatus, ...errorResponses(401, 403, 404) },
    }),
    async (request) =>
      pullStatus(request.deps, institutionOf(request).id, (request.params as { run_id: string }).run_id),
  );
}

export function adminOneRosterSourceRoutes(app: App): void {
  sourceRoutes(app);
  pullRoutes(app);
}
