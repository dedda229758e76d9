// ssp oneroster-source show|set|remove|pull|pull-status: the institution's OneRoster 1.2 REST
// provider that the service pulls (admin API, src/app/api/admin/oneroster-source.ts), like the
// other settings' commands. The client secret is read from an environment variable, never an
// argument: arguments show in process lists.
import type { Command } from 'commander';
import { type AdminCall, CliError, type Print } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { commaList, institutionPath } from './args.ts';

const SECRET_VARIABLE = 'SSP_ONEROSTER_CLIENT_SECRET';

const whole = (name: string, value: string | undefined): number | null | undefined => {
  if (value === undefined) return undefined;
  if (value === 'off' && name === '--pull-every') return null;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new CliError(`${name} takes a whole number`, EXIT.usage);
  return n;
};

export function registerOneRosterSourceCommands(program: Command, admin: () => AdminCall, print: Print) {
  const source = program
    .command('oneroster-source')
    .description("The institution's OneRoster 1.2 REST provider, pulled by the service (docs/oneroster.md)");
  const path = (slug: string, ...rest: string[]) => institutionPath(slug, 'oneroster-source', ...rest);

  source
    .command('show <institution>')
    .description('The source, its schedule and the health of its pulls (never the client secret)')
    .action(async (slug: string) => print(await admin()('GET', path(slug))));

  source
    .command('set <institution>')
    .description(`Configure the source (the client secret from $${SECRET_VARIABLE}; required the first time)`)
    .requiredOption('--base-url <url>', 'https rostering base URL (…/ims/oneroster/rostering/v1p2)')
    .requiredOption('--token-url <url>', 'https OAuth 2.0 token URL (client credentials)')
    .requiredOption('--client-id <id>', 'the OAuth client id')
    .requiredOption('--cohort <id>', "the cohort that receives the source's students")
    .option('--org-ids <ids>', 'comma-separated org sourcedIds to take (default: every org)')
    .option('--term-types <types>', 'session types that are terms (default term,semester)')
    .option('--campus-org-types <types>', 'org types that are campuses (default school)')
    .option('--programs-from <source>', 'orgs, grades or none')
    .option('--program-org-types <types>', 'org types that are programs (default department)')
    .option('--student-id <field>', 'identifier, sourcedId or username')
    .option(
      '--pull-every <minutes>',
      'minutes between scheduled pulls (5-10080), or "off" for on demand only',
    )
    .option('--full-every <hours>', 'hours between full pulls (the others are deltas)')
    .action(async (slug: string, o) => {
      const secret = process.env[SECRET_VARIABLE];
      print(
        await admin()('PUT', path(slug), {
          base_url: o.baseUrl,
          token_url: o.tokenUrl,
          client_id: o.clientId,
          ...(secret ? { client_secret: secret } : {}),
          cohort_id: o.cohort,
          org_ids: commaList(o.orgIds),
          term_types: commaList(o.termTypes),
          campus_org_types: commaList(o.campusOrgTypes),
          programs_from: o.programsFrom,
          program_org_types: commaList(o.programOrgTypes),
          student_id: o.studentId,
          pull_every_minutes: whole('--pull-every', o.pullEvery),
          full_every_hours: whole('--full-every', o.fullEvery),
        }),
      );
    });

  source
    .command('remove <institution>')
    .description('Remove the source (students and runs it brought stay)')
    .action(async (slug: string) => print((await admin()('DELETE', path(slug))) ?? { removed: true }));

  source
    .command('pull <institution>')
    .description('Sync now: queue a pull for the worker and print its status (pull-status follows it)')
    .option('--mode <mode>', 'full or delta (default: as the schedule would choose)')
    .action(async (slug: string, o) =>
      print(
        await admin()('POST', path(slug, 'pulls'), o.mode ? { mode: o.mode } : {}, {
          headers: { prefer: 'respond-async' },
        }),
      ),
    );

  source
    .command('pull-status <institution> <run-id>')
    .description('A pull asked for by pull: queued, running, or its outcome')
    .action(async (slug: string, runId: string) => print(await admin()('GET', path(slug, 'pulls', runId))));
}
