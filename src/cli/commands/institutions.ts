// ssp institutions|cohorts|crisis-contacts|roster-secret|students|programs|campuses|audience-tags
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type AdminCall, CliError, type Print } from '../admin-client.ts';
import { institutionPath, itemPath } from './args.ts';
import { listingQuery, pagingOptions } from './listing.ts';

/** A start date option: YYYY-MM-DD, or `none` to clear it. */
const startDateOption = (value: string | undefined) =>
  value === undefined ? undefined : value === 'none' ? null : value;

export function registerInstitutionCommands(program: Command, admin: () => AdminCall, print: Print) {
  registerInstitutions(program, admin, print);
  registerCohorts(program, admin, print);
  registerCrisisContacts(program, admin, print);
  registerRosterSecret(program, admin, print);
  registerListings(program, admin, print);
}

/** Institutions: create, update, list. */
function registerInstitutions(program: Command, admin: () => AdminCall, print: Print) {
  const institutions = program.command('institutions').description('Institutions (tenants)');
  institutions
    .command('create <slug> <name>')
    .description('Create an institution')
    .option('--time-zone <zone>', "IANA time zone the students' days are counted in (default UTC)")
    .action(async (slug: string, name: string, o) =>
      print(await admin()('POST', '/admin/v1/institutions', { slug, name, time_zone: o.timeZone })),
    );
  institutions
    .command('update <slug>')
    .description('Rename an institution or set its time zone')
    .option('--name <name>', 'the name people see')
    .option('--time-zone <zone>', 'IANA time zone, e.g. Australia/Sydney')
    .action(async (slug: string, o) =>
      print(await admin()('PATCH', institutionPath(slug), { name: o.name, time_zone: o.timeZone })),
    );
  pagingOptions(institutions.command('list').description('List institutions, by slug'))
    .option('--archived <which>', 'false (default): active ones; true: archived ones; any: both')
    .action(async (o) =>
      print(await admin()('GET', `/admin/v1/institutions?${listingQuery(o, { archived: 'archived' })}`)),
    );
  for (const [action, text] of [
    [
      'archive',
      'Archive an institution made by mistake: pushes refused, background work stopped, nothing deleted',
    ],
    ['restore', 'Restore an archived institution'],
  ] as const) {
    institutions
      .command(`${action} <slug>`)
      .description(`${text} (operator; docs/archiving.md)`)
      .action(async (slug: string) => print(await admin()('POST', `${institutionPath(slug)}/${action}`)));
  }
}

/** Cohorts of an institution. */
function registerCohorts(program: Command, admin: () => AdminCall, print: Print) {
  const cohortPath = itemPath('cohorts');
  const cohorts = program.command('cohorts').description("An institution's cohorts");
  cohorts
    .command('create <institution> <name>')
    .description('Create a cohort')
    .option(
      '--clock <clock>',
      'cohort: one shared start; individual: each student starts on their start_date',
      'cohort',
    )
    .option('--start-date <date>', 'first day of the six weeks (YYYY-MM-DD), for the cohort clock')
    .action(async (slug: string, name: string, o) =>
      print(
        await admin()('POST', cohortPath(slug), {
          name,
          clock: o.clock,
          start_date: startDateOption(o.startDate),
        }),
      ),
    );
  cohorts
    .command('show <institution> <cohort-id>')
    .description('Show one cohort: its name, clock and start date')
    .action(async (slug: string, id: string) => print(await admin()('GET', cohortPath(slug, id))));
  cohorts
    .command('update <institution> <cohort-id>')
    .description("Change a cohort's name, clock or start date")
    .option('--name <name>', 'new name')
    .option('--clock <clock>', 'cohort or individual')
    .option('--start-date <date>', 'first day of the six weeks (YYYY-MM-DD), or none to clear it')
    .action(async (slug: string, id: string, o) =>
      print(
        await admin()('PATCH', cohortPath(slug, id), {
          name: o.name,
          clock: o.clock,
          start_date: startDateOption(o.startDate),
        }),
      ),
    );
  pagingOptions(cohorts.command('list <institution>').description('List cohorts, oldest first'))
    .option('--archived <which>', 'false (default): active ones; true: archived ones; any: both')
    .action(async (slug: string, o) =>
      print(
        await admin()('GET', cohortPath(slug, undefined, `?${listingQuery(o, { archived: 'archived' })}`)),
      ),
    );
  for (const [action, text] of [
    ['archive', 'Archive a cohort made by mistake: pushes naming it refused, its students stay'],
    ['restore', 'Restore an archived cohort'],
  ] as const) {
    cohorts
      .command(`${action} <institution> <cohort-id>`)
      .description(`${text} (docs/archiving.md)`)
      .action(async (slug: string, id: string) =>
        print(await admin()('POST', cohortPath(slug, id, `/${action}`))),
      );
  }
}

/** Crisis contacts of an institution. */
function registerCrisisContacts(program: Command, admin: () => AdminCall, print: Print) {
  const crisis = program
    .command('crisis-contacts')
    .description('Who students in crisis are shown at once on the student pages');
  crisis
    .command('show <institution>')
    .description("Show the institution's crisis contacts")
    .action(async (slug: string) => print(await admin()('GET', institutionPath(slug, 'crisis-contacts'))));
  crisis
    .command('set <institution> <file>')
    .description(
      'Replace the list with a JSON file (- for stdin): [{"name", "phone"?, "url"?, "hours"?, "description"?}, ...]',
    )
    .action(async (slug: string, file: string) => {
      const text = file === '-' ? await readStdin() : await readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) throw new CliError(`cannot read ${file}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new CliError(`${file} is not JSON: ${(error as Error).message}`);
      }
      const contacts = Array.isArray(parsed) ? parsed : (parsed as { contacts?: unknown })?.contacts;
      print(await admin()('PUT', institutionPath(slug, 'crisis-contacts'), { contacts }));
    });
  crisis
    .command('clear <institution>')
    .description('Remove every crisis contact')
    .action(async (slug: string) =>
      print(await admin()('PUT', institutionPath(slug, 'crisis-contacts'), { contacts: [] })),
    );
}

/** The roster feed secret. */
function registerRosterSecret(program: Command, admin: () => AdminCall, print: Print) {
  const secret = program.command('roster-secret').description('The roster feed secret of an institution');
  secret
    .command('issue <institution>')
    .description('Issue a new secret (shown once; replaces the active one, at once or after an overlap)')
    .option(
      '--previous-valid-days <days>',
      'keep the current secret working for 1 to 7 days (default: stop it at once)',
    )
    .action(async (slug: string, o) =>
      print(
        await admin()(
          'POST',
          institutionPath(slug, 'roster-secret'),
          o.previousValidDays === undefined
            ? undefined
            : { previous_secret_valid_days: Number(o.previousValidDays) },
        ),
      ),
    );
  secret
    .command('revoke <institution>')
    .description('Revoke the secret: the feed closes with no fallback')
    .action(async (slug: string) => {
      await admin()('DELETE', institutionPath(slug, 'roster-secret'));
      print({ revoked: true });
    });
  secret
    .command('status <institution>')
    .description('Whether a secret is active, and when to rotate it')
    .action(async (slug: string) => print(await admin()('GET', institutionPath(slug, 'roster-secret'))));

  program
    .command('campus-merge <institution> <from> <into>')
    .description('Merge campus <from> into <into> (ids or names); <from> becomes an alias of <into>')
    .option('--actor <name>', 'who merges', 'operator')
    .action(async (slug: string, from: string, into: string, o) =>
      print(
        await admin()('POST', institutionPath(slug, 'campuses', 'merge'), {
          from,
          into,
          actor: o.actor,
        }),
      ),
    );
  program
    .command('campus-aliases <institution>')
    .description('Names that match a campus because of a merge')
    .action(async (slug: string) => print(await admin()('GET', institutionPath(slug, 'campus-aliases'))));
}

/** The listings of what the SIS pushed (students with their filters). */
function registerListings(program: Command, admin: () => AdminCall, print: Print) {
  const listing = (name: string, description: string) =>
    pagingOptions(program.command(`${name} <institution>`).description(description));

  listing('programs', "List an institution's programs, by code").action(async (slug: string, o) =>
    print(await admin()('GET', `${institutionPath(slug, 'programs')}?${listingQuery(o)}`)),
  );
  listing('campuses', "List an institution's campuses, by name").action(async (slug: string, o) =>
    print(await admin()('GET', `${institutionPath(slug, 'campuses')}?${listingQuery(o)}`)),
  );
  listing('audience-tags', "List an institution's audience tags, by kind and label").action(
    async (slug: string, o) =>
      print(await admin()('GET', `${institutionPath(slug, 'audience-tags')}?${listingQuery(o)}`)),
  );

  const studentFilters = {
    q: 'q',
    email: 'email',
    ext: 'student_id_ext',
    cohort: 'cohort_id',
    program: 'program',
    campus: 'campus',
    status: 'status',
  };
  listing('students', "List or find an institution's students, by email")
    .option('--q <text>', 'case-insensitive prefix of the email, external id, full name or last name')
    .option('--email <email>', 'the student with this email (case-insensitive)')
    .option('--ext <id>', 'the student with this external (SIS) id')
    .option('--cohort <id>', 'only this cohort (id)')
    .option('--program <code>', 'only this program')
    .option('--campus <name>', 'only this campus')
    .option('--status <status>', 'active (not departed) or departed')
    .option('--csv', 'write every matching student as CSV (no paging)')
    .action(async (slug: string, o) => {
      if (o.csv) {
        const query = listingQuery({ ...o, limit: undefined, cursor: undefined }, studentFilters);
        await admin()('GET', `${institutionPath(slug, 'students.csv')}?${query}`, undefined, {
          to: process.stdout,
        });
        return;
      }
      print(await admin()('GET', `${institutionPath(slug, 'students')}?${listingQuery(o, studentFilters)}`));
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
