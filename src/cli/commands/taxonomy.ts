// ssp terms|units|enrolments <institution>: what the SIS pushed through POST /api/sis/enrolments.
import type { Command } from 'commander';
import type { AdminCall, Print } from '../admin-client.ts';
import { institutionPath } from './args.ts';
import { listingQuery, pagingOptions } from './listing.ts';

export function registerTaxonomyCommands(program: Command, admin: () => AdminCall, print: Print) {
  pagingOptions(
    program
      .command('terms <institution>')
      .description("List an institution's terms (teaching calendar), by start date"),
  ).action(async (slug: string, o) =>
    print(await admin()('GET', `${institutionPath(slug, 'terms')}?${listingQuery(o)}`)),
  );

  pagingOptions(
    program
      .command('units <institution>')
      .description("List an institution's units with their program and campus"),
  )
    .option('--program <code>', 'only the units of this program')
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'GET',
          `${institutionPath(slug, 'units')}?${listingQuery(o, { program: 'program_code' })}`,
        ),
      ),
    );

  pagingOptions(program.command('enrolments <institution>').description("List an institution's enrolments"))
    .option('--term <code>', 'only this term')
    .option('--unit <code>', 'only this unit')
    .option('--email <email>', 'only this student')
    .option('--status <status>', 'only enrolled, withdrawn or completed')
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'GET',
          `${institutionPath(slug, 'enrolments')}?${listingQuery(o, { term: 'term_code', unit: 'unit_code', email: 'email', status: 'status' })}`,
        ),
      ),
    );
}
