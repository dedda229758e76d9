// Admin API of the help-sync secret: issue, rotate, read its state, revoke (admins holding
// Manage integrations).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminSecurity, DateTime, errorResponses, SlugParams } from '../schemas.ts';

export function adminHelpSyncSecretRoutes(app: App, services: Services): void {
  const { helpSyncSecrets } = services;
  const tags = ['admin: help desk'];
  const security = adminSecurity;

  const SecretIssued = Type.Object({
    secret: Type.String({ description: 'ssp_sync_…; shown once, cannot be read back' }),
    institution: Type.String(),
    created_at: DateTime(),
  });
  const secretPath = '/admin/v1/institutions/:slug/help-sync-secret';
  const issued = (action: 'issue' | 'rotate') => async (request: FastifyRequest) => {
    const institution = institutionOf(request);
    return helpSyncSecrets[action](institution.id, institution.slug);
  };

  app.post(
    secretPath,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Issue the help-sync secret',
        description:
          'Returns the plaintext once; only its SHA-256 is stored. 409 conflict when one is active (rotate ' +
          'it instead). There is no platform-wide fallback: until issued, the help-desk sync answers 401 ' +
          'sync_secret_never_issued for this institution.',
        params: SlugParams,
        response: { 201: SecretIssued, ...errorResponses(401, 404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await issued('issue')(request)),
  );

  app.post(
    `${secretPath}/rotate`,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Rotate the help-sync secret: a new one is returned and the old one stops working at once',
        params: SlugParams,
        response: { 201: SecretIssued, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await issued('rotate')(request)),
  );

  app.get(
    secretPath,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Help-sync secret status',
        params: SlugParams,
        response: {
          200: Type.Object({
            state: Type.Union([
              Type.Literal('active'),
              Type.Literal('revoked'),
              Type.Literal('never_issued'),
            ]),
            issued_at: Type.Optional(DateTime()),
            revoked_at: Type.Optional(DateTime()),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => helpSyncSecrets.status(institutionOf(request).id),
  );

  app.delete(
    secretPath,
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: 'Revoke the help-sync secret (immediately)',
        params: SlugParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const revoked = await helpSyncSecrets.revoke(institutionOf(request).id);
      if (!revoked)
        return reply.status(404).send({ error: 'not_found', detail: 'no active help-sync secret' });
      return reply.status(204).send(null);
    },
  );
}
