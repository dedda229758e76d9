// ssp people|identity-provider|operators|operator-link|encryption-key|encryption-rotate
import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { generateKey, keyringFromConfig } from '../../lib/encryption.ts';
import { type AdminCall, CliError, type Print } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { commaList, institutionPath } from './args.ts';

export function registerPeopleCommands(program: Command, admin: () => AdminCall, print: Print) {
  peopleCommands(program, admin, print);
  providerCommands(program, admin, print);
  operatorCommands(program, admin, print);
  encryptionCommands(program, print);
}

/** ssp people: an institution's staff and admins. */
function peopleCommands(program: Command, admin: () => AdminCall, print: Print) {
  const people = program
    .command('people')
    .description('Staff and admins of an institution (they sign in through its provider)');
  people
    .command('invite <institution> <email> <name>')
    .description("Invite someone by email; they sign in through the institution's identity provider")
    .option('--roles <roles>', 'comma-separated: admin, staff', 'staff')
    .option('--permissions <permissions>', 'comma-separated: manage_integrations (admins only)', '')
    .action(async (slug: string, email: string, name: string, o) =>
      print(
        await admin()('POST', institutionPath(slug, 'people'), {
          email,
          name,
          roles: commaList(o.roles),
          permissions: commaList(o.permissions),
        }),
      ),
    );
  people
    .command('list <institution>')
    .description('List staff and admins')
    .action(async (slug: string) => print(await admin()('GET', institutionPath(slug, 'people'))));
  people
    .command('update <institution> <person-id>')
    .description('Change name, roles or permissions (effective at once)')
    .option('--name <name>', 'new display name')
    .option('--roles <roles>', 'comma-separated: admin, staff')
    .option('--permissions <permissions>', 'comma-separated: manage_integrations, or "" for none')
    .action(async (slug: string, id: string, o) =>
      print(
        await admin()('PATCH', institutionPath(slug, 'people', id), {
          ...(o.name ? { name: o.name } : {}),
          ...(o.roles ? { roles: commaList(o.roles) } : {}),
          ...(o.permissions !== undefined ? { permissions: commaList(o.permissions) } : {}),
        }),
      ),
    );
  people
    .command('remove <institution> <person-id>')
    .description('Remove someone: their sessions end and their sign-in link goes')
    .action(async (slug: string, id: string) => {
      await admin()('DELETE', institutionPath(slug, 'people', id));
      print({ removed: id });
    });
  people
    .command('end-sessions <institution> <person-id>')
    .description('End every session of someone (they sign in again)')
    .action(async (slug: string, id: string) =>
      print(await admin()('DELETE', institutionPath(slug, 'people', id, 'sessions'))),
    );
}

/** ssp identity-provider: an institution's provider, or the platform's. */
function providerCommands(program: Command, admin: () => AdminCall, print: Print) {
  const provider = program
    .command('identity-provider')
    .description("An institution's OpenID Connect provider (or, with --platform, the operators' provider)");
  const target = (slug: string | undefined, o: { platform?: boolean }) => {
    if (o.platform) return '/admin/v1/identity-provider';
    if (!slug) throw new CliError('name an institution, or pass --platform', EXIT.usage);
    return institutionPath(slug, 'identity-provider');
  };
  provider
    .command('set [institution]')
    .description(
      'Configure the provider; the client secret is read from $SSP_IDP_CLIENT_SECRET (never an argument)',
    )
    .requiredOption('--issuer <url>', 'issuer URL (https; discovery is read from it at once)')
    .requiredOption('--client-id <id>', 'the client id registered at the provider')
    .option('--email-domains <domains>', 'comma-separated email domains of the institution')
    .option('--platform', "the platform operators' provider instead of an institution's")
    .action(async (slug: string | undefined, o) =>
      print(
        await admin()('PUT', target(slug, o), {
          issuer: o.issuer,
          client_id: o.clientId,
          ...(process.env.SSP_IDP_CLIENT_SECRET ? { client_secret: process.env.SSP_IDP_CLIENT_SECRET } : {}),
          ...(o.emailDomains !== undefined ? { email_domains: commaList(o.emailDomains) } : {}),
        }),
      ),
    );
  provider
    .command('show [institution]')
    .description('Show the provider settings (never the client secret)')
    .option('--platform', "the platform operators' provider")
    .action(async (slug: string | undefined, o) => print(await admin()('GET', target(slug, o))));
  provider
    .command('remove [institution]')
    .description('Remove the provider: nobody signs in through it any more')
    .option('--platform', "the platform operators' provider")
    .action(async (slug: string | undefined, o) => {
      await admin()('DELETE', target(slug, o));
      print({ removed: true });
    });
  provider
    .command('confirm <institution>')
    .description(
      'Operator: confirm the issuer an admin set, so people who existed before the change link to it (docs/sign-in.md)',
    )
    .action(async (slug: string) =>
      print(await admin()('POST', institutionPath(slug, 'identity-provider', 'confirmation'))),
    );
}

/** ssp operators and operator-link. */
function operatorCommands(program: Command, admin: () => AdminCall, print: Print) {
  const operators = program
    .command('operators')
    .description('Platform operators who sign in through the platform provider');
  operators
    .command('add <email> <name>')
    .description('Add an operator')
    .action(async (email: string, name: string) =>
      print(await admin()('POST', '/admin/v1/operators', { email, name })),
    );
  operators
    .command('list')
    .description('List operators')
    .action(async () => print(await admin()('GET', '/admin/v1/operators')));
  operators
    .command('remove <id>')
    .description('Remove an operator')
    .action(async (id: string) => {
      await admin()('DELETE', `/admin/v1/operators/${encodeURIComponent(id)}`);
      print({ removed: id });
    });

  program
    .command('operator-link')
    .description('Mint a one-time console sign-in link for the operator (valid 24 hours)')
    .action(async () => print(await admin()('POST', '/admin/v1/operator-sign-in-links')));
}

/** ssp encryption-key and encryption-rotate (the latter talks to the database directly). */
function encryptionCommands(program: Command, print: Print) {
  program
    .command('encryption-key')
    .description('Print a new random 32-byte key for ENCRYPTION_KEY')
    .action(() => {
      process.stdout.write(`${generateKey()}\n`);
    });

  program
    .command('encryption-rotate')
    .description(
      'Re-seal every stored secret with ENCRYPTION_KEY (old keys listed in ENCRYPTION_KEYS_PREVIOUS); talks to the database directly',
    )
    .action(async () => {
      const config = loadConfig();
      // Loaded here, not at start: the other commands need no database driver.
      const { openDb } = await import('../../db/db.ts');
      const { migrate } = await import('../../db/migrate.ts');
      const { resealSecrets } = await import('../../domain/secrets/reseal.ts');
      // The configuration's databaseUrl, dataDir, embeddedSharedBuffers and embeddedThread.
      const db = await openDb({
        ...config,
        onTightened: (message) => process.stderr.write(`ssp: ${message}\n`),
      });
      try {
        await migrate(db);
        print(await resealSecrets(db, keyringFromConfig(config)));
      } finally {
        await db.close();
      }
    });
}
