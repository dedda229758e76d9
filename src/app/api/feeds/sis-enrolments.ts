// POST /api/sis/enrolments: the taxonomy and enrolment feed of a student information system.
// The route authenticates the roster secret, asks the feed access who may push where, checks
// the envelope and hands the sections to the taxonomy service, which checks the limits,
// validates every row on its own and records the run.
import { Type } from 'typebox';
import { credentialOf, institutionForPush } from '../../../domain/roster/feed-access.ts';
import { type PushBody, type SectionName, sectionOrder } from '../../../domain/taxonomy/service.ts';
import { ApiError } from '../../../errors.ts';
import { Nullable } from '../../../lib/schema.ts';
import { refuseUnknownFields } from '../../../lib/unknown-fields.ts';
import type { Services } from '../../../services.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { rosterCallerOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { errorResponses } from '../schemas.ts';
import { feedAccess } from './feed-access.ts';
import { enrolmentsDescription, enrolmentsExamples, sectionDescriptions } from './sis-enrolments-docs.ts';
import { SourceLines } from './source-lines.ts';

const Section = (name: SectionName) =>
  Type.Optional(Type.Array(Type.Unknown(), { description: sectionDescriptions[name] }));

const Body = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    dry_run: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: validate every section against what is stored and report what would happen; nothing is written.',
      }),
    ),
    programs: Section('programs'),
    campuses: Section('campuses'),
    terms: Section('terms'),
    units: Section('units'),
    enrolments: Section('enrolments'),
    lines: Type.Optional(
      Type.Record(Type.String(), SourceLines(5000, 'the section'), {
        description: 'Per section, as `lines` of the roster feed.',
      }),
    ),
  },
  { additionalProperties: true, examples: enrolmentsExamples.requests },
);

const SectionReport = Type.Object({
  received: Type.Integer({ description: 'Rows sent in the section' }),
  created: Type.Integer({ description: 'Rows that created a record (dry run: would create)' }),
  updated: Type.Integer({ description: 'Rows that changed a stored record (dry run: would update)' }),
  unchanged: Type.Integer({ description: 'Rows identical to what is stored' }),
  rejected: Type.Integer({ description: 'Rows not applied; each has at least one entry in errors' }),
});

/** Enrolments section only: the keys its rows were sent with, beside `row`. */
const enrolmentKey = (field: string) =>
  `Enrolments section only (always present there): the ${field} the row was sent with (trimmed; an integer ` +
  'as its digits), so the record can be found in the SIS; null when absent, blank, of another type or too long';

const RowError = Type.Object({
  section: Type.String({ description: 'programs, campuses, terms, units or enrolments' }),
  row: Type.Integer({ description: "Zero-based position of the row in its section's array" }),
  email: Type.Optional(Nullable(Type.String({ description: enrolmentKey('email') }))),
  student_id_ext: Type.Optional(Nullable(Type.String({ description: enrolmentKey('student_id_ext') }))),
  unit_code: Type.Optional(Nullable(Type.String({ description: enrolmentKey('unit_code') }))),
  term_code: Type.Optional(Nullable(Type.String({ description: enrolmentKey('term_code') }))),
  code: Type.String({ description: 'Stable row error code; branch on this' }),
  message: Type.String({ description: 'What is wrong, for people; may be reworded' }),
  field: Type.Optional(Type.String({ description: 'The row field at fault, when one is' })),
});

const Result = Type.Object(
  {
    run_id: Type.String({
      format: 'uuid',
      description: 'This push in the run history (GET /admin/v1/institutions/{slug}/runs/{run_id})',
    }),
    institution: Type.String(),
    dry_run: Type.Boolean(),
    sections: Type.Object(
      Object.fromEntries(sectionOrder.map((name) => [name, Type.Optional(SectionReport)])) as Record<
        SectionName,
        ReturnType<typeof Type.Optional<typeof SectionReport>>
      >,
      { description: 'One report per section present in the request' },
    ),
    errors: Type.Array(RowError, { description: 'Every rejected row, in section order then row order' }),
  },
  { examples: enrolmentsExamples.responses },
);

const topLevelFields = ['institution', 'dry_run', 'lines', ...sectionOrder];

export function sisEnrolmentsRoutes(app: App, services: Services): void {
  const { taxonomy } = services;

  app.post(
    '/api/sis/enrolments',
    {
      // The request context checks the secret after the rate limit (an onRequest hook, so
      // guessing secrets is limited too) and before the body is parsed: an unauthenticated caller
      // learns nothing.
      config: {
        access: 'feed',
        credential: 'roster_secret',
        ...perMinute(services.config.enrolmentsRateLimitPerMinute, 'enrolments'),
      },
      schema: {
        tags: ['sis'],
        security: [{ rosterSecret: [] }],
        summary: 'Push programs, campuses, terms, units and enrolments',
        description: enrolmentsDescription(services.config.enrolmentsRateLimitPerMinute),
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
      const result = await taxonomy.push(institution, sections, {
        dryRun: body.dry_run === true,
        credential: credentialOf(caller),
        lines: body.lines as Partial<Record<SectionName, number[]>> | undefined,
      });
      return result;
    },
  );
}
