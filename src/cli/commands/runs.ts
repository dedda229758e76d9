// ssp runs list|show: what each SIS push did.
import type { Command } from 'commander';
import type { AdminCall } from '../admin-client.ts';
import { listingQuery, pagingOptions } from './listing.ts';
import { runIdFrom, runsTable } from './runs-table.ts';

const enc = encodeURIComponent;

export function registerRunCommands(
  program: Command,
  admin: () => AdminCall,
  print: (v: unknown, human?: (v: unknown) => unknown) => void,
) {
  const fullId = (slug: string, runId: string) =>
    runIdFrom(runId, () => admin()('GET', `/admin/v1/institutions/${enc(slug)}/runs?limit=100`));
  const runs = program.command('runs').description('History of SIS pushes (roster and enrolments)');
  pagingOptions(runs.command('list <institution>').description('List runs, newest first'), '20')
    .option('--kind <kind>', 'only roster or only enrolments runs')
    .option('--from <day>', 'only runs started on or after this UTC day (YYYY-MM-DD)')
    .option('--to <day>', 'only runs started on or before this UTC day (YYYY-MM-DD)')
    .option('--has-errors', 'only runs that reported row errors')
    .action(async (slug: string, o) => {
      const query = listingQuery(
        { ...o, hasErrors: o.hasErrors ? 'true' : undefined },
        { kind: 'kind', from: 'from', to: 'to', hasErrors: 'has_errors' },
      );
      print(await admin()('GET', `/admin/v1/institutions/${enc(slug)}/runs?${query}`), runsTable);
    });
  runs
    .command('show <institution> <run-id>')
    .description('One run with its row errors (the id, or its first 8 characters as runs list shows them)')
    .action(async (slug: string, runId: string) =>
      print(
        await admin()('GET', `/admin/v1/institutions/${enc(slug)}/runs/${enc(await fullId(slug, runId))}`),
      ),
    );
  runs
    .command('errors <institution> <run-id>')
    .description("Write a run's row errors as CSV")
    .action(async (slug: string, runId: string) => {
      const id = await fullId(slug, runId);
      await admin()('GET', `/admin/v1/institutions/${enc(slug)}/runs/${enc(id)}/errors.csv`, undefined, {
        to: process.stdout,
      });
    });

  const fullSyncs = program.command('full-syncs').description('Full syncs of a roster and their departures');
  pagingOptions(fullSyncs.command('list <institution>').description('List full syncs, newest first'))
    .option('--status <status>', 'only open, applied, held, confirmed or discarded ones')
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'GET',
          `/admin/v1/institutions/${enc(slug)}/full-syncs?${listingQuery(o, { status: 'status' })}`,
        ),
      ),
    );
  fullSyncs
    .command('show <institution> <id>')
    .description('One full sync with the students it departs (or holds)')
    .action(async (slug: string, id: string) =>
      print(await admin()('GET', `/admin/v1/institutions/${enc(slug)}/full-syncs/${enc(id)}`)),
    );
  pagingOptions(
    fullSyncs
      .command('departures <institution> <id>')
      .description('The students a full sync departs (or holds), a page at a time, by student id'),
  ).action(async (slug: string, id: string, o) =>
    print(
      await admin()(
        'GET',
        `/admin/v1/institutions/${enc(slug)}/full-syncs/${enc(id)}/departures?${listingQuery(o)}`,
      ),
    ),
  );
  for (const action of ['confirm', 'discard'] as const) {
    fullSyncs
      .command(`${action} <institution> <id>`)
      .description(action === 'confirm' ? 'Apply held departures' : 'Discard held departures')
      .option('--actor <name>', 'who decides', 'operator')
      .action(async (slug: string, id: string, o) =>
        print(
          await admin()('POST', `/admin/v1/institutions/${enc(slug)}/full-syncs/${enc(id)}/${action}`, {
            actor: o.actor,
          }),
        ),
      );
  }
}
