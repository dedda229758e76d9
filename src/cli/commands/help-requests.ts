// ssp help-requests|help-sync-secret|events: the help desk through the admin HTTP API.
import type { Command } from 'commander';
import type { AdminCall } from '../admin-client.ts';

const enc = encodeURIComponent;

export function registerHelpRequestCommands(
  program: Command,
  admin: () => AdminCall,
  print: (v: unknown) => void,
) {
  const requests = program
    .command('help-requests')
    .description("An institution's help requests (stands in for the student app and the staff console)");
  const path = (slug: string, id?: string, rest = '') =>
    `/admin/v1/institutions/${enc(slug)}/help-requests${id ? `/${enc(id)}` : ''}${rest}`;

  requests
    .command('create <institution> <student-id>')
    .description('Create a help request for a student')
    .option('--priority <priority>', 'low, normal, high or crisis', 'normal')
    .option('--summary <text>', 'what the student needs')
    .option('--actor <name>', 'who creates it (audit trail)')
    .action(async (slug: string, studentId: string, o) =>
      print(
        await admin()('POST', path(slug), {
          student_id: studentId,
          priority: o.priority,
          summary: o.summary,
          actor: o.actor,
        }),
      ),
    );

  requests
    .command('list <institution>')
    .description('List help requests, newest first')
    .option('--status <status>', 'new, ack, in_progress or resolved')
    .option('--priority <priority>', 'low, normal, high or crisis')
    .option('--student <id>', 'only this student')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, o) => {
      const query = new URLSearchParams({ limit: o.limit, offset: o.offset });
      if (o.status) query.set('status', o.status);
      if (o.priority) query.set('priority', o.priority);
      if (o.student) query.set('student_id', o.student);
      print(await admin()('GET', `${path(slug)}?${query}`));
    });

  requests
    .command('show <institution> <id>')
    .description('Read a help request with its timeline')
    .action(async (slug: string, id: string) => print(await admin()('GET', path(slug, id))));

  requests
    .command('status <institution> <id> <status>')
    .description('Staff: set the status')
    .requiredOption('--staff <name>', 'the staff member making the change')
    .action(async (slug: string, id: string, status: string, o) =>
      print(await admin()('POST', path(slug, id, '/status'), { status, staff: o.staff })),
    );

  requests
    .command('note <institution> <id> <note>')
    .description('Staff: add a staff-visible note')
    .requiredOption('--staff <name>', 'the staff member writing it')
    .action(async (slug: string, id: string, note: string, o) =>
      print(await admin()('POST', path(slug, id, '/notes'), { note, staff: o.staff })),
    );

  requests
    .command('assign <institution> <id> <assignee>')
    .description('Staff: assign to a staff member')
    .requiredOption('--staff <name>', 'the staff member making the change')
    .action(async (slug: string, id: string, assignee: string, o) =>
      print(await admin()('PUT', path(slug, id, '/assignment'), { assignee, staff: o.staff })),
    );

  requests
    .command('unassign <institution> <id>')
    .description('Staff: remove the assignment')
    .requiredOption('--staff <name>', 'the staff member making the change')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('PUT', path(slug, id, '/assignment'), { assignee: null, staff: o.staff })),
    );

  const secret = program
    .command('help-sync-secret')
    .description('The help-desk sync secret of an institution');
  const secretPath = (slug: string) => `/admin/v1/institutions/${enc(slug)}/help-sync-secret`;
  secret
    .command('issue <institution>')
    .description('Issue the secret (shown once); fails when one is active')
    .action(async (slug: string) => print(await admin()('POST', secretPath(slug))));
  secret
    .command('rotate <institution>')
    .description('Issue a new secret (shown once); the old one stops working at once')
    .action(async (slug: string) => print(await admin()('POST', `${secretPath(slug)}/rotate`)));
  secret
    .command('revoke <institution>')
    .description('Revoke the secret, effective immediately')
    .action(async (slug: string) => {
      await admin()('DELETE', secretPath(slug));
      print({ revoked: true });
    });
  secret
    .command('status <institution>')
    .action(async (slug: string) => print(await admin()('GET', secretPath(slug))));

  program
    .command('events <institution>')
    .description("Read an institution's event log, oldest first")
    .option('--after-seq <n>', 'only events after this sequence number', '0')
    .option('--limit <n>', 'page size', '100')
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'GET',
          `/admin/v1/institutions/${enc(slug)}/events?after_seq=${enc(o.afterSeq)}&limit=${enc(o.limit)}`,
        ),
      ),
    );
}
