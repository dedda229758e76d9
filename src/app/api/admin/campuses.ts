// Admin API: merging campuses, their aliases, and the operator audit trail.
import { Type } from 'typebox';
import { readOperatorAudit } from '../../../domain/audit/operator-audit.ts';
import { campusAliases, mergeCampuses } from '../../../domain/campuses/merge.ts';
import { CampusAlias, MergeBody, MergeResult } from '../../../domain/campuses/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { DateTime, errorResponses, Uuid } from '../schemas.ts';

export function adminCampusRoutes(app: App): void {
  const tags = ['admin'];

  app.post(
    '/admin/v1/institutions/:slug/campuses/merge',
    institutionRoute('operator', tags, {
      summary: 'Merge one campus into another',
      description:
        'Moves students and units of `from` to `into`, deletes `from` and its audience tag, and keeps the name of ' +
        '`from` as an alias of `into`, so a later push that still uses the old name matches `into` instead of ' +
        'creating the campus again. Each campus is named by id or by name (case-insensitive). Recorded in the ' +
        'operator audit trail.',
      body: MergeBody,
      response: {
        200: MergeResult,
        ...errorResponses(400, 401, 404),
      },
    }),
    async (request) => {
      const institution = institutionOf(request);
      return mergeCampuses(request.deps.db, institution.id, {
        from: request.body.from,
        into: request.body.into,
        actor: request.body.actor ?? 'operator',
      });
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/campus-aliases',
    institutionRoute('read', tags, {
      summary: 'Names that match a campus because of a merge',
      response: {
        200: Type.Object({ items: Type.Array(CampusAlias) }),
        ...errorResponses(401, 404),
      },
    }),
    async (request) => {
      const institution = institutionOf(request);
      return { items: await campusAliases(request.deps.db, institution.id) };
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/operator-audit',
    institutionRoute('admin', tags, {
      summary: 'Operator actions on this institution (append-only)',
      response: {
        200: Type.Object({
          items: Type.Array(
            Type.Object({
              id: Uuid(),
              actor: Type.String(),
              action: Type.String(),
              details: Type.Record(Type.String(), Type.Unknown()),
              at: DateTime(),
            }),
          ),
        }),
        ...errorResponses(401, 404),
      },
    }),
    async (request) => {
      const institution = institutionOf(request);
      return { items: (await readOperatorAudit(request.deps.db, institution.id)) as never[] };
    },
  );
}
