// The OneRoster memory for `ssp push oneroster`: what completed pushes and pulls placed (orgs,
// courses, classes, users, enrollments by sourcedId), kept by the service per institution so a
// delta from any machine resolves what it omits the same way (docs/oneroster.md, "Deltas").
// Authenticated by the roster secret like the feeds. Both are POST: the push client speaks
// POST only (src/cli/push/feed-client.ts), and a page is asked for by a body like any feed's.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MEMORY_PAGE_MAX, readMemoryPage, writeMemory } from '../../../domain/oneroster/memory-api.ts';
import { institutionForPush } from '../../../domain/roster/feed-access.ts';
import { ApiError } from '../../../errors.ts';
import type { Services } from '../../../services.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { rosterCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { errorResponses } from '../schemas.ts';
import { feedAccess } from './feed-access.ts';

/** Pages a push reads and writes: some 20 each for 20,000 students and 60,000 enrollments. */
const REQUESTS_PER_MINUTE = 600;

const Key = Type.Object(
  { kind: Type.String(), sourced_id: Type.String() },
  { additionalProperties: false, description: 'Where a page starts: the `next` of the page before' },
);

const Entry = Type.Object({
  kind: Type.String({ description: 'org, course, class, user or enrollment' }),
  sourced_id: Type.String({ description: "The record's sourcedId in the SIS" }),
  data: Type.Unknown({
    description:
      'org: {kind: campus|program|other, key}; course: {unit}; class: {unit, term}; user: {student: student_id_ext or ' +
      'null (not a student), orgs}; enrollment: {student, unit, term}. Writing: null forgets the entry',
  }),
});

const ReadBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    after: Type.Optional(Key),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MEMORY_PAGE_MAX, default: MEMORY_PAGE_MAX })),
  },
  { additionalProperties: false },
);

const WriteBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    entries: Type.Array(Type.Unknown(), {
      maxItems: MEMORY_PAGE_MAX,
      description: 'Changed entries (Entry)',
    }),
  },
  { additionalProperties: false },
);

function requireJson(request: FastifyRequest): void {
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? ''))
    throw new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
}

export function oneRosterMemoryRoutes(app: App, services: Services): void {
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
        summary: 'Read what OneRoster pushes and pulls placed',
        description:
          "A page of the institution's OneRoster memory in a stable order; `next` is the `after` of the next page " +
          '(null after the last). `ssp push oneroster` reads it whole before a push, so a delta resolves what it omits.',
        body: ReadBody,
        response: {
          200: Type.Object({
            entries: Type.Array(Entry),
            next: Type.Union([Key, Type.Null()]),
          }),
          ...errorResponses(400, 401, 404, 415, 429),
        },
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
      return readMemoryPage(services.db, institution.id, body.after, body.limit ?? MEMORY_PAGE_MAX);
    },
  );

  app.post(
    '/api/sis/oneroster/memory',
    {
      ...route,
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: 'Record what a OneRoster push placed',
        description:
          'Entries a completed `ssp push oneroster` changed, at most 5000 a request; an entry with `data: null` is ' +
          'forgotten. Each is checked: the first bad one answers 400 `invalid_field` naming it (`entries[3].data.unit`).',
        body: WriteBody,
        response: {
          200: Type.Object({ stored: Type.Integer(), forgotten: Type.Integer() }),
          ...errorResponses(400, 401, 404, 413, 415, 429),
        },
      },
    },
    async (request) => {
      const body = request.body as { institution: string; entries: unknown[] };
      const institution = await institutionForPush(
        feedAccess(request.deps.db),
        rosterCallerOf(request),
        body.institution,
      );
      return writeMemory(services.db, institution.id, body.entries, services.clock.now());
    },
  );
}
