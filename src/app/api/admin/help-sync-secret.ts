// Admin API of the help-sync secret: issue, rotate, read its state, revoke (admins holding
// Manage integrations).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  issueSyncSecret,
  revokeSyncSecret,
  rotateSyncSecret,
  syncSecretStatus,
} from '../../../domain/secrets/help-sync-secrets.ts';
import { HelpSyncSecretStatus, IssuedSyncSecret } from '../../../domain/secrets/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';

export function adminHelpSyncSecretRoutes(app: App): void {
  const tags = ['admin: help desk'];

  const secretPath = '/admin/v1/institutions/:slug/help-sync-secret';
  const issued = (action: 'issue' | 'rotate') => async (request: FastifyRequest) =>
    (action === 'issue' ? issueSyncSecret : rotateSyncSecret)(request.deps.db, institutionOf(request));

  app.post(
    secretPath,
    institutionRoute('integrations', tags, {
      summary: 'Issue the help-sync secret',
      description:
        'Returns the plaintext once; only its SHA-256 is stored. 409 conflict when one is active (rotate ' +
        'it instead). There is no platform-wide fallback: until issued, the help-desk sync answers 401 ' +
        'sync_secret_never_issued for this institution.',
      response: { 201: IssuedSyncSecret, ...errorResponses(401, 404, 409) },
    }),
    async (request, reply) => reply.status(201).send(await issued('issue')(request)),
  );

  app.post(
    `${secretPath}/rotate`,
    institutionRoute('integrations', tags, {
      summary: 'Rotate the help-sync secret: a new one is returned and the old one stops working at once',
      response: { 201: IssuedSyncSecret, ...errorResponses(401, 404) },
    }),
    async (request, reply) => reply.status(201).send(await issued('rotate')(request)),
  );

  app.get(
    secretPath,
    institutionRoute('integrations', tags, {
      summary: 'Help-sync secret status',
      response: {
        200: HelpSyncSecretStatus,
        ...errorResponses(401, 404),
      },
    }),
    async (request) => syncSecretStatus(request.deps.db, institutionOf(request).id),
  );

  app.delete(
    secretPath,
    institutionRoute('integrations', tags, {
      summary: 'Revoke the help-sync secret (immediately)',
      response: { 204: Type.Null(), ...errorResponses(401, 404) },
    }),
    async (request, reply) => {
      const revoked = await revokeSyncSecret(request.deps.db, institutionOf(request).id);
      if (!revoked)
        return reply.status(404).send({ error: 'not_found', detail: 'no active help-sync secret' });
      return reply.status(204).send(null);
    },
  );
}
