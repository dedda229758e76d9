// The OneRoster memory for `ssp push oneroster`: what completed pushes and pulls placed (orgs,
// courses, classes, users, enrollments by sourcedId), kept by the service per institution so a
// delta from any machine resolves what it omits the same way (docs/oneroster.md, "Deltas").
// Read in pages; what a page of enrollments placed asked; changes written, current at once or
// staged for a push and made current by its commit. Authenticated by the roster secret like the
// feeds. All are POST: the push client speaks POST only (src/cli/push/feed-client.ts), and a
// page is asked for by a body like any feed's.
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import {
  commitMemory,
  MEMORY_PAGE_MAX,
  placedBy,
  readMemoryPage,
  writeMemory,
} from '../../../domain/oneroster/memory-api.ts';
import { institutionForPush } from '../../../domain/roster/feed-access.ts';
import { ApiError } from '../../../errors.ts';
import { refuseUnknownFields } from '../../../lib/unknown-fields.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { rosterCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { parameterNames } from '../query-parameters.ts';
import { errorResponses } from '../schemas.ts';
import { feedAccess } from './feed-access.ts';
import {
  CommitBody,
  commitDescription,
  commitSummary,
  PlacementsAnswer,
  PlacementsBody,
  placementsDescription,
  placementsSummary,
  ReadAnswer,
  ReadBody,
  readDescription,
  readSummary,
  WriteAnswer,
  WriteBody,
  writeDescription,
  writeSummary,
} from './oneroster-memory-docs.ts';

/**
 * Pages a push reads, asks and writes: for 20,000 students and 60,000 enrollments some 5 pages of
 * the memory, 30 of placements and 30 staged, and one commit.
 */
const REQUESTS_PER_MINUTE = 600;

function requireJson(request: FastifyRequest): void {
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? ''))
    throw new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
}

type Institution = Awaited<ReturnType<typeof institutionForPush>>;

/**
 * One of the memory's routes: the roster secret, its rate limit, JSON only, the institution the
 * body names (the secret must be valid for it), then the handler.
 */
function memoryRoute<B extends { institution: string }>(
  app: App,
  path: string,
  docs: { summary: string; description: string; body: TSchema; answer: TSchema; errors: number[] },
  handle: (request: FastifyRequest, body: B, institution: Institution) => Promise<unknown>,
): void {
  const fields = [...(parameterNames(docs.body) ?? [])];
  app.post(
    path,
    {
      // The request context checks the roster secret after the rate limit, before the body is parsed.
      config: {
        access: 'feed' as const,
        credential: 'roster_secret' as const,
        ...perMinute(REQUESTS_PER_MINUTE, 'oneroster-memory'),
      },
      preValidation: async (request: FastifyRequest) => {
        requireJson(request);
        // Before the schema, as on every feed: a misspelt field is named as such (docs/versioning.md).
        refuseUnknownFields(request.body, fields);
      },
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: docs.summary,
        description: docs.description,
        body: docs.body,
        response: { 200: docs.answer, ...errorResponses(...docs.errors) },
      },
    },
    async (request) => {
      const body = request.body as B;
      const institution = await institutionForPush(
        feedAccess(request.deps.db),
        rosterCallerOf(request),
        body.institution,
      );
      return handle(request, body, institution);
    },
  );
}

export function oneRosterMemoryRoutes(app: App): void {
  memoryRoute<{
    institution: string;
    after?: { kind: string; sourced_id: string };
    limit?: number;
    kinds?: string[];
  }>(
    app,
    '/api/sis/oneroster/memory/read',
    {
      summary: readSummary,
      description: readDescription,
      body: ReadBody,
      answer: ReadAnswer,
      errors: [400, 401, 404, 415, 429],
    },
    (request, body, institution) =>
      readMemoryPage(request.deps.db, institution.id, body.after, body.limit ?? MEMORY_PAGE_MAX, body.kinds),
  );

  memoryRoute<{ institution: string; entries: unknown[]; push?: string }>(
    app,
    '/api/sis/oneroster/memory',
    {
      summary: writeSummary,
      description: writeDescription,
      body: WriteBody,
      answer: WriteAnswer,
      errors: [400, 401, 404, 413, 415, 429],
    },
    (request, body, institution) =>
      writeMemory(request.deps.db, institution.id, body.entries, request.deps.clock.now(), body.push),
  );

  memoryRoute<{ institution: string; sourced_ids: string[] }>(
    app,
    '/api/sis/oneroster/memory/placements',
    {
      summary: placementsSummary,
      description: placementsDescription,
      body: PlacementsBody,
      answer: PlacementsAnswer,
      errors: [400, 401, 404, 413, 415, 429],
    },
    async (request, body, institution) => ({
      placements: await placedBy(request.deps.db, institution.id, body.sourced_ids),
    }),
  );

  memoryRoute<{ institution: string; push: string }>(
    app,
    '/api/sis/oneroster/memory/commit',
    {
      summary: commitSummary,
      description: commitDescription,
      body: CommitBody,
      answer: WriteAnswer,
      errors: [400, 401, 404, 415, 429],
    },
    (request, body, institution) =>
      commitMemory(request.deps.db, institution.id, body.push, request.deps.clock.now()),
  );
}
