// ssp runs list|show: what each SIS push did.
import type { Command } from 'commander';
import type { AdminCall } from '../admin-client.ts';

export function registerRunCommands(program: Command, admin: () => AdminCall, print: (v: unknown) => void) {
  const runs = program.command('runs').description('History of SIS pushes (roster and enrolments)');
  runs
    .command('list <institution>')
    .option('--kind <kind>', 'roster or enrolments')
    .option('--limit <n>', 'page size', '20')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, o) => {
      const kind = o.kind ? `&kind=${encodeURIComponent(o.kind)}` : '';
      print(
        await admin()(
          'GET',
          `/admin/v1/institutions/${slug}/runs?limit=${o.limit}&offset=${o.offset}${kind}`,
        ),
      );
    });
  runs
    .command('show <institution> <run-id>')
    .description('One run with its row errors')
    .action(async (slug: string, runId: string) =>
      print(await admin()('GET', `/admin/v1/institutions/${slug}/runs/${runId}`)),
    );

  const fullSyncs = program.command('full-syncs').description('Full syncs of a roster and their departures');
  fullSyncs
    .command('list <institution>')
    .option('--status <status>', 'open, applied, held, confirmed or discarded')
    .action(async (slug: string, o) => {
      const status = o.status ? `?status=${encodeURIComponent(o.status)}` : '';
      print(await admin()('GET', `/admin/v1/institutions/${slug}/full-syncs${status}`));
    });
  fullSyncs
    .command('show <institution> <id>')
    .action(async (slug: string, id: string) =>
      print(await admin()('GET', `/admin/v1/institutions/${slug}/full-syncs/${id}`)),
    );
  for (const action of ['confirm', 'discard'] as const) {
    fullSyncs
      .command(`${action} <institution> <id>`)
      .description(action === 'confirm' ? 'Apply held departures' : 'Discard held departures')
      .option('--actor <name>', 'who decides', 'operator')
      .action(async (slug: string, id: string, o) =>
        print(
          await admin()('POST', `/admin/v1/institutions/${slug}/full-syncs/${id}/${action}`, {
            actor: o.actor,
          }),
        ),
      );
  }
}
