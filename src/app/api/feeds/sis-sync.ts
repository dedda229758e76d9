// POST /api/sis/sync: the roster feed (spec 4.1). Thin: rate limit, authenticate, check the
// envelope, hand the cohort and the rows to the roster domain, reply.
//
// Order of checks: rate limit (per client address, before anything else), then the bearer
// secret (before the body is parsed, so no cohort is looked at for an unknown caller), then
// unknown top-level fields (400 unknown_field), the envelope (400), the cohort (404, decided by
// the domain's feed access), the page size (413, the domain's), then the rows.
import type { FastifyRequest } from 'fastify';
import { forBackground } from '../../../db/db.ts';
import type { Deps } from '../../../domain/deps.ts';
import { cohortForPush, credentialOf } from '../../../domain/roster/feed-access.ts';
import { syncRoster } from '../../../domain/roster/sync.ts';
import { ApiError } from '../../../errors.ts';
import { refuseUnknownFields } from '../../../lib/unknown-fields.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { rosterCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { errorResponses } from '../schemas.ts';
import { feedAccess } from './feed-access.ts';
import { description, SyncBody, SyncResponse } from './sis-sync-docs.ts';

/** The top-level fields of the body; anything else is 400 unknown_field. */
const bodyFields = Object.keys(SyncBody.properties);

/** The rate limit is the process's configuration, read once as the route is registered. */
export function sisSyncRoutes(app: App, { config }: Pick<Deps, 'config'>): void {
  app.post(
    '/api/sis/sync',
    {
      // The request context checks the secret after the rate limit, before the body is parsed.
      config: {
        access: 'feed',
        credential: 'roster_secret',
        ...perMinute(config.rosterRateLimitPerMinute, 'roster'),
      },
      // Fastify also parses text/plain; this endpoint takes JSON only.
      preValidation: async (request: FastifyRequest) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/json') {
          if (request.body === undefined || request.body === '' || request.body === null) {
            throw new ApiError('empty_body', { detail: 'the request body is empty; send a JSON object' });
          }
          throw new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
        }
        // Before the schema, so that `cohortId` is named as misspelt rather than cohort_id as missing.
        refuseUnknownFields(request.body, bodyFields);
      },
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: 'Roster sync: push a page of students',
        description,
        body: SyncBody,
        response: { 200: SyncResponse, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503) },
      },
    },
    async (request) => {
      const caller = rosterCallerOf(request);
      const {
        cohort_id: cohortId,
        students,
        dry_run: dryRun,
        sync_id: syncId,
        final_page: finalPage,
      } = request.body;
      const cohort = await cohortForPush(feedAccess(request.deps.db), caller, cohortId);
      if (finalPage !== undefined && syncId === undefined) {
        throw new ApiError('invalid_field', { field: 'final_page', detail: 'final_page needs sync_id' });
      }
      // A page is bulk work nobody watches row by row: on the embedded database, one session, a
      // person's request waiting meanwhile goes first (src/db/pglite-worker.js).
      const { db, clock, config } = request.deps;
      return syncRoster(
        { db: forBackground(db), clock, config },
        {
          institutionId: cohort.institution_id,
          cohortId: cohort.id,
          students,
          dryRun: dryRun === true,
          credential: credentialOf(caller),
          fullSync: syncId === undefined ? undefined : { syncId, finalPage: finalPage === true },
          lines: request.body.lines,
        },
      );
    },
  );
}
