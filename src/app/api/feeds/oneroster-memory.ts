// The OneRoster memory for `ssp push oneroster`: what completed pushes and pulls placed (orgs,
// courses, classes, users, enrollments by sourcedId), kept by the service per institution so a
// delta from any machine resolves what it omits the same way (docs/oneroster.md, "Deltas").
// Authenticated by the roster secret like the feeds. Both are POST: the push client speaks
// POST only (src/cli/push/feed-client.ts), and a page is asked for by a body like any feed's.
import type { FastifyRequest } from 'fastify';
import { MEMORY_PAGE_MAX, readMemoryPage, writeMemory } from '../../../domain/oneroster/memory-api.ts';
import { institutionForPush } from '../../../domain/roster/feed-access.ts';
import { ApiError } from '../../../errors.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { rosterCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { errorResponses } from '../schemas.ts';
import { feedAccess } from './feed-access.ts';
import {
  ReadAnswer,
  ReadBody,
  readDescription,
  readSummary,
  WriteAnswer,
  WriteBody,
  writeDescription,
  writeSummary,
} from './oneroster-memory-docs.ts';

/** Pages a push reads and writes: some 20 each for 20,000 students and 60,000 enrollments. */
const REQUESTS_PER_MINUTE = 600;

function requireJson(request: FastifyRequest): void {
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? ''))
    throw new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
}

export function oneRosterMemoryRoutes(app: App): void {
  const route = {
    // The request context checks the roster secret after the rate limit, before the body is parsed.
    config: {
      access: 'feed' as const,
      credential: 'roster_secret' as const,
      ...perMinute(REQUESTS_PER_MINUTE, 'oneroster-memory'),
    },
    preValidation: async (request: FastifyRequest) => requireJson(request),
  };

  app.post(
    '/api/sis/oneroster/memory/read',
    {
      ...route,
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: readSummary,
        description: readDescription,
        body: ReadBody,
        response: { 200: ReadAnswer, ...errorResponses(400, 401, 404, 415, 429) },
      },
    },
    async (request) => {
      const body = request.body as {
        institution: string;
        after?: { kind: string; sourced_id: string };
        limit?: number;
      };
      const institution = await institutionForPush(
        feedAccess(request.deps.db),
        rosterCallerOf(request),
        body.institution,
      );
      return readMemoryPage(request.deps.db, institution.id, body.after, body.limit ?? MEMORY_PAGE_MAX);
    },
  );

  app.post(
    '/api/sis/oneroster/memory',
    {
      ...route,
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: writeSummary,
        description: writeDescription,
        body: WriteBody,
        response: { 200: WriteAnswer, ...errorResponses(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      const body = request.body as { institution: string; entries: unknown[] };
      const institution = await institutionForPush(
        feedAccess(request.deps.db),
        rosterCallerOf(request),
        body.institution,
      );
      return writeMemory(request.deps.db, institution.id, body.entries, request.deps.clock.now());
    },
  );
}
