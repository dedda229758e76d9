// Admin API of the roster feed secret: issue (shown once), read its state and rotation date,
// revoke (institution admins). Rules: src/domain/secrets/roster-secrets.ts.
import { Type } from 'typebox';
import {
  issueRosterSecret,
  revokeRosterSecret,
  rosterSecretStatus,
  rosterSecretsDueForRotation,
} from '../../../domain/secrets/roster-secrets.ts';
import {
  IssuedRosterSecret,
  IssueRosterSecretBody,
  RosterSecretStatus,
} from '../../../domain/secrets/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { DateTime, errorResponses, Nullable } from '../schemas.ts';

export function adminRosterSecretRoutes(app: App): void {
  const tags = ['admin'];

  app.post(
    '/admin/v1/institutions/:slug/roster-secret',
    institutionRoute('admin', tags, {
      summary: 'Issue the roster feed secret (replaces the current one, at once or after an overlap)',
      description:
        'Returns the plaintext secret once; only its SHA-256 is stored. By default the current secret stops ' +
        'working at once. With `previous_secret_valid_days` (1 to 7) it keeps working beside the new one ' +
        'until then, so the SIS can be switched without a hard cut-over; the status shows when each was last ' +
        'used. Revoking ends both.',
      body: Type.Optional(IssueRosterSecretBody),
      response: { 201: IssuedRosterSecret, ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) => {
      const institution = institutionOf(request);
      const issued = await issueRosterSecret(request.deps.db, institution, {
        previousValidDays: request.body?.previous_secret_valid_days,
        now: request.deps.clock.now(),
      });
      return reply.status(201).send(issued);
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/roster-secret',
    institutionRoute('admin', tags, {
      summary: 'Roster feed secret status: age, rotation date, last use, and a previous secret still working',
      response: { 200: RosterSecretStatus, ...errorResponses(401, 404) },
    }),
    async (request) => rosterSecretStatus(request.deps, institutionOf(request).id, request.deps.clock.now()),
  );

  app.delete(
    '/admin/v1/institutions/:slug/roster-secret',
    institutionRoute('admin', tags, {
      summary:
        'Revoke the roster feed secret (and a previous one still working): the feed closes, with no fallback to the bootstrap secret',
      response: { 204: Type.Null(), ...errorResponses(401, 404) },
    }),
    async (request, reply) => {
      const institution = institutionOf(request);
      const revoked = await revokeRosterSecret(request.deps.db, institution.id);
      if (!revoked) return reply.status(404).send({ error: 'not_found', detail: 'no active roster secret' });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/admin/v1/roster-secrets/due',
    adminRoute('operator', tags, {
      summary: 'Institutions whose roster secret is due for rotation (90 days old or more), oldest first',
      response: {
        200: Type.Object({
          items: Type.Array(
            Type.Object({
              slug: Type.String(),
              name: Type.String(),
              issued_at: DateTime(),
              last_used_at: Nullable(DateTime()),
            }),
          ),
        }),
        ...errorResponses(401, 403),
      },
    }),
    async (request) => ({ items: await rosterSecretsDueForRotation(request.deps.db) }),
  );
}
