// ssp webhooks ... (admin API) and ssp worker (runs the webhook delivery worker without HTTP).
import type { Command } from 'commander';
import type { AdminCall } from '../admin-client.ts';

export function registerWebhookCommands(
  program: Command,
  admin: () => AdminCall,
  print: (v: unknown) => void,
) {
  const hooks = program
    .command('webhooks')
    .description("An institution's webhook endpoints and their deliveries");
  const path = (slug: string, id?: string, rest = '') =>
    `/admin/v1/institutions/${encodeURIComponent(slug)}/webhook-endpoints${id ? `/${encodeURIComponent(id)}` : ''}${rest}`;
  const types = (value: string | undefined) =>
    value === undefined
      ? undefined
      : value
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);

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
          event_types: types(o.events),
          description: o.description,
          enabled: o.disabled ? false : undefined,
        }),
      ),
    );
  hooks
    .command('list <institution>')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, o) =>
      print(await admin()('GET', `${path(slug)}?limit=${o.limit}&offset=${o.offset}`)),
    );
  hooks
    .command('show <institution> <id>')
    .action(async (slug: string, id: string) => print(await admin()('GET', path(slug, id))));
  hooks
    .command('update <institution> <id>')
    .description('Change url, event types, description, or enable/disable')
    .option('--url <url>')
    .option('--events <types>', 'comma-separated event types; empty string for all')
    .option('--description <text>')
    .option('--enable', 'enable (clears the disabled reason)')
    .option('--disable', 'disable')
    .action(async (slug: string, id: string, o) =>
      print(
        await admin()('PATCH', path(slug, id), {
          url: o.url,
          event_types: types(o.events),
          description: o.description,
          enabled: o.enable ? true : o.disable ? false : undefined,
        }),
      ),
    );
  hooks
    .command('disable <institution> <id>')
    .option('--reason <text>')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('POST', path(slug, id, '/disable'), { reason: o.reason })),
    );
  hooks.command('delete <institution> <id>').action(async (slug: string, id: string) => {
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
  hooks
    .command('deliveries <institution> <id>')
    .option('--state <state>', 'pending, succeeded or failed')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, id: string, o) =>
      print(
        await admin()(
          'GET',
          path(
            slug,
            id,
            `/deliveries?limit=${o.limit}&offset=${o.offset}${o.state ? `&state=${o.state}` : ''}`,
          ),
        ),
      ),
    );
  hooks
    .command('attempts <institution> <id>')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, id: string, o) =>
      print(await admin()('GET', path(slug, id, `/attempts?limit=${o.limit}&offset=${o.offset}`))),
    );
  hooks
    .command('event <institution> <event_id>')
    .description('One event and its deliveries with every attempt')
    .action(async (slug: string, eventId: string) =>
      print(
        await admin()(
          'GET',
          `/admin/v1/institutions/${encodeURIComponent(slug)}/events/${encodeURIComponent(eventId)}/deliveries`,
        ),
      ),
    );
  hooks
    .command('redeliver <institution> <id> <event_id>')
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
  hooks.command('metrics').action(async () => print(await admin()('GET', '/admin/v1/metrics')));

  program
    .command('worker')
    .description('Run the webhook delivery worker alone (no HTTP); stops cleanly on SIGINT/SIGTERM')
    .action(async () => {
      const { runStandaloneWorker } = await import('../../workers/standalone.ts');
      await runStandaloneWorker();
    });
}
