// ssp institutions|cohorts|roster-secret|students|programs|campuses|audience-tags
import type { Command } from 'commander';
import type { AdminCall } from '../admin-client.ts';

export function registerInstitutionCommands(
  program: Command,
  admin: () => AdminCall,
  print: (v: unknown) => void,
) {
  const institutions = program.command('institutions').description('Institutions (tenants)');
  institutions
    .command('create <slug> <name>')
    .description('Create an institution')
    .action(async (slug: string, name: string) =>
      print(await admin()('POST', '/admin/v1/institutions', { slug, name })),
    );
  institutions
    .command('list')
    .option('--limit <n>', 'page size', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (o) =>
      print(await admin()('GET', `/admin/v1/institutions?limit=${o.limit}&offset=${o.offset}`)),
    );

  const cohorts = program.command('cohorts').description("An institution's cohorts");
  cohorts
    .command('create <institution> <name>')
    .option('--clock <clock>', 'cohort or individual', 'cohort')
    .action(async (slug: string, name: string, o) =>
      print(await admin()('POST', `/admin/v1/institutions/${slug}/cohorts`, { name, clock: o.clock })),
    );
  cohorts
    .command('list <institution>')
    .action(async (slug: string) => print(await admin()('GET', `/admin/v1/institutions/${slug}/cohorts`)));

  const secret = program.command('roster-secret').description('The roster feed secret of an institution');
  secret
    .command('issue <institution>')
    .description('Issue a new secret (shown once; replaces the active one)')
    .action(async (slug: string) =>
      print(await admin()('POST', `/admin/v1/institutions/${slug}/roster-secret`)),
    );
  secret
    .command('revoke <institution>')
    .description('Revoke the secret: the feed closes with no fallback')
    .action(async (slug: string) => {
      await admin()('DELETE', `/admin/v1/institutions/${slug}/roster-secret`);
      print({ revoked: true });
    });
  secret
    .command('status <institution>')
    .action(async (slug: string) =>
      print(await admin()('GET', `/admin/v1/institutions/${slug}/roster-secret`)),
    );

  program
    .command('campus-merge <institution> <from> <into>')
    .description('Merge campus <from> into <into> (ids or names); <from> becomes an alias of <into>')
    .option('--actor <name>', 'who merges', 'operator')
    .action(async (slug: string, from: string, into: string, o) =>
      print(
        await admin()('POST', `/admin/v1/institutions/${slug}/campuses/merge`, {
          from,
          into,
          actor: o.actor,
        }),
      ),
    );
  program
    .command('campus-aliases <institution>')
    .description('Names that match a campus because of a merge')
    .action(async (slug: string) =>
      print(await admin()('GET', `/admin/v1/institutions/${slug}/campus-aliases`)),
    );

  for (const [name, path] of [
    ['students', 'students'],
    ['programs', 'programs'],
    ['campuses', 'campuses'],
    ['audience-tags', 'audience-tags'],
  ] as const) {
    program
      .command(`${name} <institution>`)
      .description(`List an institution's ${name.replace('-', ' ')}`)
      .option('--limit <n>', 'page size', '100')
      .option('--offset <n>', 'skip this many', '0')
      .action(async (slug: string, o) =>
        print(
          await admin()('GET', `/admin/v1/institutions/${slug}/${path}?limit=${o.limit}&offset=${o.offset}`),
        ),
      );
  }
}
