// ssp terms|units|enrolments <institution>: what the SIS pushed through POST /api/sis/enrolments.
import type { Command } from 'commander';
import type { AdminCall } from '../admin-client.ts';

function query(options: Record<string, string | undefined>, names: Record<string, string>): string {
  const params = new URLSearchParams();
  params.set('limit', options.limit ?? '100');
  params.set('offset', options.offset ?? '0');
  for (const [option, param] of Object.entries(names)) {
    const value = options[option];
    if (value !== undefined) params.set(param, value);
  }
  return params.toString();
}

export function registerTaxonomyCommands(
  program: Command,
  admin: () => AdminCall,
  print: (v: unknown) => void,
) {
  const base = (slug: string, path: string) => `/admin/v1/institutions/${encodeURIComponent(slug)}/${path}`;

  program
    .command('terms <institution>')
    .description("List an institution's terms (teaching calendar), by start date")
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, o) => print(await admin()('GET', `${base(slug, 'terms')}?${query(o, {})}`)));

  program
    .command('units <institution>')
    .description("List an institution's units with their program and campus")
    .option('--program <code>', 'only the units of this program')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, o) =>
      print(await admin()('GET', `${base(slug, 'units')}?${query(o, { program: 'program_code' })}`)),
    );

  program
    .command('enrolments <institution>')
    .description("List an institution's enrolments")
    .option('--term <code>', 'only this term')
    .option('--unit <code>', 'only this unit')
    .option('--email <email>', 'only this student')
    .option('--status <status>', 'only enrolled, withdrawn or completed')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'GET',
          `${base(slug, 'enrolments')}?${query(o, { term: 'term_code', unit: 'unit_code', email: 'email', status: 'status' })}`,
        ),
      ),
    );
}
