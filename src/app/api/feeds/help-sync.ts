// POST /api/integrations/help-sync: the external ticketing system's write-only surface.
// The route's schema checks the envelope only (an update row may be any JSON value); every
// update row is validated in the domain so that a malformed row becomes that row's error while
// the others go on.
//
// Order of checks: rate limit; then one hook, once the body is parsed (the institution it
// names tells "never issued" from "wrong" secrets): Content-Type (415), the secret (401),
// unknown top-level fields (400 unknown_field); then the envelope schema (400), the batch size
// (413, the domain's), then the rows.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../../config.ts';
import { syncHelpRequests } from '../../../domain/helpdesk/sync.ts';
import { ApiError } from '../../../errors.ts';
import { refuseUnknownFields } from '../../../lib/unknown-fields.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { syncCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { errorResponses } from '../schemas.ts';
import { Answer, Body, helpSyncDescription } from './help-sync-docs.ts';

/** The top-level fields of the body; anything else is 400 unknown_field. */
const bodyFields = Object.keys(Body.properties);

/** The rate limit is the process's configuration, read once as the route is registered. */
export function helpSyncRoutes(app: App, { config }: { config: Config }): void {
  app.post(
    '/api/integrations/help-sync',
    {
      config: {
        access: 'feed',
        credential: 'sync_secret',
        ...perMinute(config.helpSyncRateLimitPerMinute, 'help-sync'),
      },
      schema: {
        tags: ['help-desk sync'],
        security: [{ syncSecret: [] }],
        summary: 'Mirror external ticket changes onto help requests',
        description: helpSyncDescription(config.helpSyncRateLimitPerMinute),
        body: Body,
        response: {
          200: Answer,
          ...errorResponses(400, 401, 409, 413, 415, 429, 500, 503),
        },
      },
      // The framework also parses text/plain; this endpoint takes JSON only. Checked before the
      // secret, which the request context verifies after parsing (the institution the body names
      // tells "never issued" from "wrong") and before the schema, so an unknown caller learns
      // nothing about the body it sent.
      preParsing: async (request: FastifyRequest, _reply, payload) => {
        if (!/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? '')) {
          throw new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
        }
        return payload;
      },
      preValidation: async (request: FastifyRequest) => {
        refuseUnknownFields(request.body, bodyFields);
      },
    },
    async (request) => syncHelpRequests(request.deps, syncCallerOf(request), request.body),
  );
}
