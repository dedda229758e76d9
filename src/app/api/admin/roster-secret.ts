// Admin API of the roster feed secret: issue (shown once), read its state and rotation date,
// revoke (institution admins). Rules: src/domain/secrets/roster-secrets.ts.
import { Type } from 'typebox';
import {
  issueRosterSecret,
  revokeRosterSecret,
  rosterSecretStatus,
} from '../../../domain/secrets/roster-secrets.ts';
import { IssuedRosterSecret, RosterSecretStatus } from '../../../domain/secrets/schemas.ts';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminSecurity, errorResponses, SlugParams } from '../schemas.ts';

export function adminRosterSecretRoutes(app: App, { db, config }: Services): void {
  const tags = ['admin'];
  const security = adminSecurity;
  const deps = { db, bootstrapHash: config.bootstrapRosterSecretHash };

  app.post(
    '/admin/v1/institutions/:slug/roster-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Issue the roster feed secret (replaces any active one)',
        description:
          'Returns the plaintext secret once; only its SHA-256 is stored. Issuing again revokes the previous secret at once.',
        params: SlugParams,
        response: { 201: IssuedRosterSecret, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const institution = institutionOf(request);
      return reply.status(201).send(await issueRosterSecret(db, institution));
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/roster-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Roster feed secret status',
        params: SlugParams,
        response: { 200: RosterSecretStatus, ...errorResponses(401, 404) },
      },
    },
    async (request) => rosterSecretStatus(deps, institutionOf(request).id),
  );

  app.delete(
    '/admin/v1/institutions/:slug/roster-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Revoke the roster feed secret: the feed closes, with no fallback to the bootstrap secret',
        params: SlugParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const institution = institutionOf(request);
      const revoked = await revokeRosterSecret(db, institution.id);
      if (!revoked) return reply.status(404).send({ error: 'not_found', detail: 'no active roster secret' });
      return reply.status(204).send(null);
    },
  );
}
