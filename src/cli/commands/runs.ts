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
}
