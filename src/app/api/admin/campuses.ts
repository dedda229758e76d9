// Admin API: merging campuses, their aliases, and the operator audit trail.
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminSecurity, DateTime, errorResponses, SlugParams, Text, Uuid } from '../schemas.ts';

const CampusRef = Type.Object({ id: Uuid(), name: Type.String() });

export function adminCampusRoutes(app: App, services: Services): void {
  const { campusMerge } = services;
  const tags = ['admin'];
  const security = adminSecurity;

  app.post(
    '/admin/v1/institutions/:slug/campuses/merge',
    {
      config: { access: 'operator' },
      schema: {
        tags,
        security,
        summary: 'Merge one campus into another',
        description:
          'Moves students and units of `from` to `into`, deletes `from` and its audience tag, and keeps the name of ' +
          '`from` as an alias of `into`, so a later push that still uses the old name matches `into` instead of ' +
          'creating the campus again. Each campus is named by id or by name (case-insensitive). Recorded in the ' +
          'operator audit trail.',
        params: SlugParams,
        body: Type.Object({
          from: Text({
            minLength: 1,
            maxLength: 500,
            description: 'The campus that goes (id or name)',
          }),
          into: Text({
            minLength: 1,
            maxLength: 500,
            description: 'The campus that stays (id or name)',
          }),
          actor: Type.Optional(
            Text({ minLength: 1, maxLength: 200, description: 'Who merges; default "operator"' }),
          ),
        }),
        response: {
          200: Type.Object({
            merged: CampusRef,
            into: CampusRef,
            moved: Type.Object({ students: Type.Integer(), units: Type.Integer(), aliases: Type.Integer() }),
            alias: Type.String(),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const institution = institutionOf(request);
      return campusMerge.merge(institution.id, {
        from: request.body.from,
        into: request.body.into,
        actor: request.body.actor ?? 'operator',
      });
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/campus-aliases',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Names that match a campus because of a merge',
        params: SlugParams,
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                alias: Type.String(),
                campus_id: Uuid(),
                campus_name: Type.String(),
                created_at: DateTime(),
              }),
            ),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      const institution = institutionOf(request);
      return { items: (await campusMerge.aliases(institution.id)) as never[] };
    },
  );

  app.get(
    '/admin/v1/institutions/:slug/operator-audit',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        security,
        summary: 'Operator actions on this institution (append-only)',
        params: SlugParams,
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
      },
    },
    async (request) => {
      const institution = institutionOf(request);
      return { items: (await campusMerge.operatorAudit(institution.id)) as never[] };
    },
  );
}
