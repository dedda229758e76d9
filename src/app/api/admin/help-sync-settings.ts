// Admin API of the help-sync's settings (admins holding Manage integrations): whether the help
// desk may post public replies to students (the sync's `reply` action, docs/help-sync.md). Off
// until turned on: a reply reaches the student, so an institution chooses it.
import { Type } from 'typebox';
import { selectHelpSyncReplies, updateHelpSyncReplies } from '../../../domain/helpdesk/queries.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';

const HelpSyncSettings = Type.Object(
  {
    public_replies: Type.Boolean({
      description:
        'Whether help-sync rows with `action: reply` post a public reply the student reads (default false: ' +
        'such rows answer `replies_not_enabled`)',
    }),
  },
  { additionalProperties: false },
);

export function adminHelpSyncSettingsRoutes(app: App): void {
  const tags = ['admin: help desk'];
  const path = '/admin/v1/institutions/:slug/help-sync-settings';

  app.get(
    path,
    institutionRoute('integrations', tags, {
      summary: "Read the help-sync's settings",
      response: { 200: HelpSyncSettings, ...errorResponses(401, 403, 404) },
    }),
    async (request) => ({
      public_replies: await selectHelpSyncReplies(request.deps.db, institutionOf(request).id),
    }),
  );

  app.put(
    path,
    institutionRoute('integrations', tags, {
      summary: "Set the help-sync's settings",
      description:
        'public_replies: true lets the help desk post public replies (`action: reply`), which the student reads ' +
        'and is emailed about. Refused while the institution is archived (409 institution_archived).',
      body: HelpSyncSettings,
      response: { 200: HelpSyncSettings, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) => {
      await updateHelpSyncReplies(request.deps.db, institutionOf(request).id, request.body.public_replies);
      return { public_replies: request.body.public_replies };
    },
  );
}
