// Public replies from the help desk (admins holding Manage integrations): whether the help desk
// may reply to students through help-sync (docs/help-sync.md). The same setting as PUT
// …/help-sync-settings, audited like every console change.
import { selectHelpSyncReplies, updateHelpSyncReplies } from '../../../domain/helpdesk/queries.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { text } from './forms.ts';

const schema = { hide: true, params: PageParams };
const config = { access: 'integrations' as const };

export function helpSyncReplyRoutes(app: App): void {
  app.get('/:slug/secrets/help-sync/replies', { config, schema }, async (request) =>
    ctx(request).render('console/help-sync-replies.eta', {
      title: 'Public replies from the help desk',
      on: await selectHelpSyncReplies(request.deps.db, institutionOf(request).id),
    }),
  );

  app.post(
    '/:slug/secrets/help-sync/replies',
    { config: { ...config, formFields: ['public_replies'] }, schema },
    async (request, reply) => {
      await updateHelpSyncReplies(
        request.deps.db,
        institutionOf(request).id,
        text(request.body, 'public_replies') === 'on',
      );
      return reply.redirect(
        `/console/${institutionOf(request).slug}/secrets/help-sync/replies?done=help_sync_replies_saved`,
        303,
      );
    },
  );
}
