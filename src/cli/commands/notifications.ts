// ssp notifications: who is told of help requests by email, and the recent notification emails
// (docs/notifications.md). Calls the admin API like every admin command.
import type { Command } from 'commander';
import type { AdminCall, Print } from '../admin-client.ts';

const enc = encodeURIComponent;

export function registerNotificationCommands(program: Command, admin: () => AdminCall, print: Print): void {
  const notifications = program
    .command('notifications')
    .description('Email notifications about help requests: who is told, and the recent emails');
  notifications
    .command('list <institution>')
    .description('The recent notification emails, newest first, with their state and failures')
    .option('--state <state>', 'pending, sent, failed or skipped')
    .option('--limit <n>', 'at most this many (1 to 200, default 50)')
    .action(async (slug: string, o: { state?: string; limit?: string }) => {
      const query = new URLSearchParams();
      if (o.state) query.set('state', o.state);
      if (o.limit) query.set('limit', o.limit);
      const suffix = query.size > 0 ? `?${query}` : '';
      print(await admin()('GET', `/admin/v1/institutions/${enc(slug)}/notifications${suffix}`));
    });
  notifications
    .command('recipients <institution>')
    .description('Who is told of what: crisis recipients and each person’s own choices')
    .action(async (slug: string) =>
      print(await admin()('GET', `/admin/v1/institutions/${enc(slug)}/notification-recipients`)),
    );
  notifications
    .command('set-crisis-recipients <institution> [personIds...]')
    .description('Make exactly these people (ids) the ones told of every new crisis request; none: no one')
    .action(async (slug: string, personIds: string[]) =>
      print(
        await admin()('PUT', `/admin/v1/institutions/${enc(slug)}/notification-recipients`, {
          crisis_recipients: personIds,
        }),
      ),
    );
}
