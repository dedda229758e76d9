// Admin API: the admin audit of an institution, newest first.
import { Type } from 'typebox';
import { listAdminAuditEntries } from '../../../domain/access/audit.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { DateTime, errorResponses, Uuid } from '../schemas.ts';

export function adminAuditRoutes(app: App): void {
  const tags = ['admin: people and sign-in'];

  app.get(
    '/admin/v1/institutions/:slug/audit',
    institutionRoute('admin', tags, {
      summary: 'The admin audit: every change made through the admin API, newest first',
      querystring: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        before: Type.Optional(Uuid('The last id of the previous page')),
      }),
      response: {
        200: Type.Object({
          items: Type.Array(
            Type.Object({
              id: Uuid(),
              actor_kind: Type.String(),
              actor_id: Type.Union([Uuid(), Type.Null()]),
              actor: Type.String(),
              session_id: Type.Union([Uuid(), Type.Null()]),
              action: Type.String(),
              target: Type.Union([Type.String(), Type.Null()]),
              status: Type.Integer(),
              request_id: Type.Union([Type.String(), Type.Null()]),
              at: DateTime(),
            }),
          ),
        }),
        ...errorResponses(401, 403, 404),
      },
    }),
    async (request) => ({
      items: await listAdminAuditEntries(request.deps.db, institutionOf(request).id, {
        limit: request.query.limit ?? 100,
        before: request.query.before,
      }),
    }),
  );
}
