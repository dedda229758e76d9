// ssp webhooks ... (admin API) and ssp worker (runs the background workers without HTTP).
import type { Command } from 'commander';
import type { AdminCall, Print } from '../admin-client.ts';
import { commaList, institutionPath, itemPath } from './args.ts';
import { listingQuery, pagingOptions } from './listing.ts';

/** An endpoint's admin API path, or one under it. */
const path = itemPath('webhook-endpoints');

export function registerWebhookCommands(program: Command, admin: () => AdminCall, print: Print) {
  const hooks = program
    .command('webhooks')
    .description("An institution's webhook endpoints and their deliveries");
  registerEndpointCommands(hooks, admin, print);
  registerDeliveryCommands(hooks, admin, print);
  registerWorkerCommand(program);
}

/** ssp webhooks add, list, show, update, disable, delete, rotate-secret, test: the endpoints. */
function registerEndpointCommands(hooks: Command, admin: () => AdminCall, print: Print) {
  hooks
    .command('add <institution> <url>')
    .description('Add an endpoint; prints its signing secret once')
    .option('--events <types>', 'comma-separated event types (default: all)')
    .option('--description <text>', 'a note for people')
    .option('--disabled', 'create it disabled')
    .action(async (slug: string, url: string, o) =>
      print(
        await admin()('POST', path(slug), {
          url,
          event_types: commaList(o.events),
          description: o.description,
          enabled: o.disabled ? false : undefined,
        }),
      ),
    );
  pagingOptions(hooks.command('list <institution>').description('List endpoints, oldest first')).action(
    async (slug: string, o) => print(await admin()('GET', `${path(slug)}?${listingQuery(o)}`)),
  );
  hooks
    .command('show <institution> <id>')
    .description('One endpoint (never its secret)')
    .action(async (slug: string, id: string) => print(await admin()('GET', path(slug, id))));
  hooks
    .command('update <institution> <id>')
    .description('Change url, event types, description, or enable/disable')
    .option('--url <url>', 'the new URL (https; checked as when added)')
    .option('--events <types>', 'comma-separated event types; empty string for all')
    .option('--description <text>', 'a note for people')
    .option('--enable', 'enable (clears the disabled reason)')
    .option('--disable', 'disable')
    .action(async (slug: string, id: string, o) =>
      print(
        await admin()('PATCH', path(slug, id), {
          url: o.url,
          event_types: commaList(o.events),
          description: o.description,
          enabled: o.enable ? true : o.disable ? false : undefined,
        }),
      ),
    );
  hooks
    .command('disable <institution> <id>')
    .description('Stop deliveries at once; pending ones fail and can be replayed later')
    .option('--reason <text>', 'why (shown as disabled_reason)')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('POST', path(slug, id, '/disable'), { reason: o.reason })),
    );
  hooks
    .command('delete <institution> <id>')
    .description('Delete an endpoint and its delivery log')
    .action(async (slug: string, id: string) => {
      await admin()('DELETE', path(slug, id));
      print({ deleted: true });
    });
  hooks
    .command('rotate-secret <institution> <id>')
    .description('New signing secret (shown once); the previous one also signs for 24 hours')
    .action(async (slug: string, id: string) =>
      print(await admin()('POST', path(slug, id, '/rotate-secret'))),
    );
  hooks
    .command('test <institution> <id>')
    .description('Send a webhook.test event to this endpoint')
    .action(async (slug: string, id: string) => print(await admin()('POST', path(slug, id, '/test'))));
}

/** ssp webhooks deliveries, attempts, event, redeliver, replay, metrics: what was delivered. */
function registerDeliveryCommands(hooks: Command, admin: () => AdminCall, print: Print) {
  pagingOptions(
    hooks.command('deliveries <institution> <id>').description("An endpoint's delivery log, newest first"),
  )
    .option('--state <state>', 'only pending, succeeded or failed deliveries')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('GET', path(slug, id, `/deliveries?${listingQuery(o, { state: 'state' })}`))),
    );
  pagingOptions(
    hooks.command('attempts <institution> <id>').description("An endpoint's attempt log, newest first"),
  ).action(async (slug: string, id: string, o) =>
    print(await admin()('GET', path(slug, id, `/attempts?${listingQuery(o)}`))),
  );
  hooks
    .command('event <institution> <event_id>')
    .description('One event and its deliveries with every attempt')
    .action(async (slug: string, eventId: string) =>
      print(await admin()('GET', institutionPath(slug, 'events', eventId, 'deliveries'))),
    );
  hooks
    .command('redeliver <institution> <id> <event_id>')
    .description('Deliver one event to this endpoint again, now')
    .action(async (slug: string, id: string, eventId: string) =>
      print(await admin()('POST', path(slug, id, '/redeliver'), { event_id: eventId })),
    );
  hooks
    .command('replay <institution> <id>')
    .description('Requeue every failed delivery since a time')
    .requiredOption('--since <time>', 'ISO 8601 time')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('POST', path(slug, id, '/replay'), { since: o.since })),
    );
  hooks
    .command('metrics')
    .description('Delivery metrics: queue depth, outcomes, endpoints')
    .action(async () => print(await admin()('GET', '/admin/v1/metrics')));
}

/** ssp worker: the background workers without HTTP. */
function registerWorkerCommand(program: Command) {
  program
    .command('worker')
    .description('Run the background workers alone (no HTTP); stops cleanly on SIGINT/SIGTERM')
    .addHelpText(
      'after',
      // Keep in step with createWorkers() in src/runtime.ts: the one list of what a worker process runs.
      '\nIt runs every background worker of the service:\n' +
        '  webhook deliveries     signed POSTs of the outbox to each endpoint, with retries\n' +
        '  calendar fetches       each calendar feed at its refresh interval\n' +
        '  notification emails    the email outbox over SMTP_URL, with retries\n' +
        '  OneRoster pulls        each OneRoster source on its schedule, and pulls asked for now\n' +
        '  crisis escalations     crisis requests nobody picked up within the escalation window\n' +
        '  retention              erasing what has passed its retention period, hourly\n' +
        'It needs PostgreSQL (DATABASE_URL): with the embedded database the workers run inside\n' +
        '`ssp serve` (RUN_WORKERS=true). Any number of worker processes can share one database.',
    )
    .action(async () => {
      const { runStandaloneWorker } = await import('../worker.ts');
      await runStandaloneWorker();
    });
}
