// POST /api/sis/enrolments: the taxonomy and enrolment feed of a student information system.
// The route authenticates the roster secret, asks the feed access who may push where, checks
// the envelope and hands the sections to the taxonomy's push (domain/taxonomy/push.ts), which checks the limits,
// validates every row on its own and records the run.

import type { Deps } from '../../../domain/deps.ts';
import { credentialOf, institutionForPush } from '../../../domain/roster/feed-access.ts';
import {
  type PushBody,
  pushTaxonomy,
  type SectionName,
  sectionOrder,
} from '../../../domain/taxonomy/push.ts';
import { ApiError } from '../../../errors.ts';
import { refuseUnknownFields } from '../../../lib/unknown-fields.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { rosterCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { errorResponses } from '../schemas.ts';
import { feedAccess } from './feed-access.ts';
import { Body, enrolmentsDescription, Result } from './sis-enrolments-docs.ts';

const topLevelFields = ['institution', 'dry_run', 'lines', ...sectionOrder];

/** The rate limit is the process's configuration, read once as the route is registered. */
export function sisEnrolmentsRoutes(app: App, { config }: Pick<Deps, 'config'>): void {
  app.post(
    '/api/sis/enrolments',
    {
      // The request context checks the secret after the rate limit (an onRequest hook, so
      // guessing secrets is limited too) and before the body is parsed: an unauthenticated caller
      // learns nothing.
      config: {
        access: 'feed',
        credential: 'roster_secret',
        ...perMinute(config.enrolmentsRateLimitPerMinute, 'enrolments'),
      },
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: 'Push programs, campuses, terms, units and enrolments',
        description: enrolmentsDescription(config.enrolmentsRateLimitPerMinute),
        body: Body,
        response: { 200: Result, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503) },
      },
      // The framework also parses text/plain; this endpoint takes JSON only.
      preValidation: async (request) => {
        if (!/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? '')) {
          throw new ApiError('unsupported_media_type', { detail: 'send Content-Type: application/json' });
        }
      },
    },
    async (request) => {
      const caller = rosterCallerOf(request);
      const body = request.body;
      const institution = await institutionForPush(feedAccess(request.deps.db), caller, body.institution);
      // The same check as the other feeds; here a stray key is most likely a misspelt section.
      refuseUnknownFields(body, topLevelFields, 'unknown_section');
      const sections: PushBody = {};
      for (const name of sectionOrder) if (body[name] !== undefined) sections[name] = body[name];
      const result = await pushTaxonomy(request.deps, institution, sections, {
        dryRun: body.dry_run === true,
        credential: credentialOf(caller),
        lines: body.lines as Partial<Record<SectionName, number[]>> | undefined,
      });
      return result;
    },
  );
}
