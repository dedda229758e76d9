// ssp help-requests|help-sync-secret|events: the help desk through the admin HTTP API.
import type { Command } from 'commander';
import { type AdminCall, CliError, type Print } from '../admin-client.ts';
import { institutionPath, itemPath } from './args.ts';
import { listingQuery, pagingOptions } from './listing.ts';

/** A help request's admin API path, or one under it. */
const path = itemPath('help-requests');

export function registerHelpRequestCommands(program: Command, admin: () => AdminCall, print: Print) {
  const requests = program
    .command('help-requests')
    .description("An institution's help requests (stands in for the student app and the staff console)");
  registerRequestCommands(requests, admin, print);
  registerStaffCommands(requests, admin, print);
  registerSyncSecretCommands(program, admin, print);
  registerEventsCommand(program, admin, print);
}

/** ssp help-requests create, list, show. */
function registerRequestCommands(requests: Command, admin: () => AdminCall, print: Print) {
  requests
    .command('create <institution> <student>')
    .description('Create a help request for a student, named by id or by email')
    .option('--priority <priority>', 'low, normal, high or crisis', 'normal')
    .option('--summary <text>', 'what the student needs')
    .option('--actor <name>', 'who creates it (audit trail)')
    .action(async (slug: string, student: string, o) =>
      print(
        await admin()('POST', path(slug), {
          ...(student.includes('@') ? { student_email: student } : { student_id: student }),
          priority: o.priority,
          summary: o.summary,
          actor: o.actor,
        }),
      ),
    );

  pagingOptions(requests.command('list <institution>').description('List help requests, newest first'))
    .option('--status <status>', 'only new, ack, in_progress or resolved ones')
    .option('--priority <priority>', 'only low, normal, high or crisis ones')
    .option('--student <id>', "only this student's (id)")
    .option(
      '--assigned <who>',
      "only those assigned to a person (id), to anyone ('any') or to no one ('none')",
    )
    .option('--order <order>', 'newest (default) or crisis_first (open crisis requests first)')
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'GET',
          `${path(slug)}?${listingQuery(o, {
            status: 'status',
            priority: 'priority',
            student: 'student_id',
            assigned: 'assigned',
            order: 'order',
          })}`,
        ),
      ),
    );

  requests
    .command('show <institution> <id>')
    .description('Read a help request with its timeline')
    .action(async (slug: string, id: string) => print(await admin()('GET', path(slug, id))));
}

/** ssp help-requests status, note, reply, assign, unassign: what staff do with a request. */
function registerStaffCommands(requests: Command, admin: () => AdminCall, print: Print) {
  // Each posts its one argument, as the field it is named after, with the staff member acting.
  for (const [command, field, sub, description, staff] of [
    ['status', 'status', '/status', 'Staff: set the status', 'the staff member making the change'],
    ['note', 'note', '/notes', 'Staff: add a staff-visible note', 'the staff member writing it'],
    [
      'reply',
      'text',
      '/replies',
      'Staff: reply to the student (they read it on their request and are emailed a link)',
      'the staff member replying',
    ],
  ] as const) {
    requests
      .command(`${command} <institution> <id> <${field}>`)
      .description(description)
      .requiredOption('--staff <name>', staff)
      .action(async (slug: string, id: string, value: string, o) =>
        print(await admin()('POST', path(slug, id, sub), { [field]: value, staff: o.staff })),
      );
  }

  requests
    .command('assign <institution> <id> <person>')
    .description(
      'Staff: assign to a staff member or admin, named by person id or by email (case-insensitive, ' +
        'looked up among the active staff and admins of the institution)',
    )
    .requiredOption('--staff <name>', 'the staff member making the change')
    .action(async (slug: string, id: string, person: string, o) => {
      let assigneeId = person;
      if (person.includes('@')) {
        const { items } = (await admin()('GET', path(slug, 'assignees'))) as {
          items: { id: string; email: string }[];
        };
        const found = items.find((p) => p.email.toLowerCase() === person.toLowerCase());
        if (!found) throw new CliError(`no active staff member or admin with email ${person} in ${slug}`);
        assigneeId = found.id;
      }
      print(await admin()('PUT', path(slug, id, '/assignment'), { assignee_id: assigneeId, staff: o.staff }));
    });

  requests
    .command('unassign <institution> <id>')
    .description('Staff: remove the assignment')
    .requiredOption('--staff <name>', 'the staff member making the change')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('PUT', path(slug, id, '/assignment'), { assignee_id: null, staff: o.staff })),
    );
}

/** ssp help-sync-secret issue, rotate, revoke, status. */
function registerSyncSecretCommands(program: Command, admin: () => AdminCall, print: Print) {
  const secret = program
    .command('help-sync-secret')
    .description('The help-desk sync secret of an institution');
  const secretPath = (slug: string) => institutionPath(slug, 'help-sync-secret');
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
    .description('Whether a secret is active, revoked or never issued')
    .action(async (slug: string) => print(await admin()('GET', secretPath(slug))));
}

/** ssp events: the institution's event log. */
function registerEventsCommand(program: Command, admin: () => AdminCall, print: Print) {
  program
    .command('events <institution>')
    .description("Read an institution's event log, oldest first")
    .option('--after-seq <n>', 'only events after this sequence number', '0')
    .option('--limit <n>', 'page size', '100')
    .action(async (slug: string, o) => {
      const query = new URLSearchParams({ after_seq: o.afterSeq, limit: o.limit });
      print(await admin()('GET', `${institutionPath(slug, 'events')}?${query}`));
    });
}
