// ssp: serve, migrate, worker, admin commands that call the admin HTTP API, dev-idp and dev-mail.
import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { DatabaseInUseError } from '../db/errors.ts';
import { CliError, createAdminClient } from './admin-client.ts';
import { registerCalendarCommands } from './commands/calendar.ts';
import { registerDevIdpCommand } from './commands/dev-idp.ts';
import { registerDevMailCommand } from './commands/dev-mail.ts';
import { registerDevOneRosterCommand } from './commands/dev-oneroster.ts';
import { registerHelpRequestCommands } from './commands/help-requests.ts';
import { registerInstitutionCommands } from './commands/institutions.ts';
import { registerNotificationCommands } from './commands/notifications.ts';
import { registerOneRosterSourceCommands } from './commands/oneroster-source.ts';
import { registerPeopleCommands } from './commands/people.ts';
import { registerPrivacyCommands } from './commands/privacy.ts';
import { registerRunCommands } from './commands/runs.ts';
import { registerTaxonomyCommands } from './commands/taxonomy.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';
import { registerDemoCommand } from './demo/command.ts';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.ts';
import { createPrinter } from './output.ts';
import { registerPushCommands } from './push/command.ts';
import { suggestCommands } from './suggest-command.ts';

const version = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const program = new Command('ssp')
  .description('Student-support platform integration service')
  .option(
    '--url <url>',
    'base URL of the service (admin commands)',
    process.env.SSP_URL ?? 'http://127.0.0.1:3000',
  )
  .option('--token <token>', 'operator token (default: $SSP_OPERATOR_TOKEN)')
  .option('--json', 'print JSON (the default when the output is not a terminal; tables otherwise)')
  .version(version, '-V, --version', 'print the version of ssp')
  .addHelpText('after', `\n${EXIT_CODES_HELP}\nSee docs/ssp-push.md for the push commands.`)
  // One line after a usage error, not the whole command list (which scrolls the error away).
  .showHelpAfterError('(add --help for usage)')
  // Usage errors throw (run() maps them to exit 64); subcommands inherit this.
  .exitOverride();

/**
 * The database layer, loaded by the commands that open the database themselves: the other
 * commands (the admin client, ssp push) start without the database drivers in memory.
 */
async function database() {
  const [db, migrations, probes, operator] = await Promise.all([
    import('../db/db.ts'),
    import('../db/migrate.ts'),
    import('../db/probes.ts'),
    import('../domain/secrets/operator-credentials.ts'),
  ]);
  return {
    /** The database the configuration names, as the server opens it; tightened settings said on stderr. */
    openConfigured: (config: Config) =>
      db.openDb({
        ...config,
        onTightened: (message) => process.stderr.write(`ssp: ${message}\n`),
      }),
    embeddedDatabaseExists: db.embeddedDatabaseExists,
    migrate: migrations.migrate,
    hasMigrationsTable: probes.hasMigrationsTable,
    resetOperatorCredential: operator.resetOperatorCredential,
  };
}

const print = createPrinter(() => program.opts());
const admin = () => {
  const options = program.opts();
  return createAdminClient({ url: options.url, token: options.token ?? process.env.SSP_OPERATOR_TOKEN });
};

program
  .command('serve')
  .description('Serve the API (same as npm start)')
  .action(async () => {
    const { serve } = await import('../main.ts');
    await serve();
  });

program
  .command('migrate')
  .description('Apply pending database migrations and exit')
  .action(async () => {
    const config = loadConfig();
    const { openConfigured, migrate } = await database();
    const db = await openConfigured(config);
    try {
      const applied = await migrate(db);
      print({ applied });
    } finally {
      await db.close();
    }
  });

program
  .command('operator-reset')
  .description(
    'Revoke every stored operator token, end every operator session, cancel unused operator sign-in links, and print a new token (talks to the database directly)',
  )
  .action(async () => {
    const config = loadConfig();
    const { openConfigured, migrate, hasMigrationsTable, embeddedDatabaseExists, resetOperatorCredential } =
      await database();
    // A reset is for a database the server already uses: never create a new, empty one.
    if (!config.databaseUrl && !embeddedDatabaseExists(config.dataDir))
      throw new CliError(
        `no embedded database in ${config.dataDir}: run this where the server runs, with its DATA_DIR ` +
          '(or DATABASE_URL); a first start of the server creates the database and prints a token',
        EXIT.failed,
      );
    const db = await openConfigured(config);
    try {
      if (!(await hasMigrationsTable(db)))
        throw new CliError(
          'the database of DATABASE_URL has no tables of this service: start the server once first',
          EXIT.failed,
        );
      await migrate(db);
      const reset = await resetOperatorCredential(db);
      const where = config.databaseUrl
        ? 'the PostgreSQL database of DATABASE_URL'
        : `the embedded database in ${config.dataDir}`;
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      process.stderr.write(
        `ssp: every operator token of ${where} is revoked; ` +
          `${count(reset.sessionsEnded, 'operator session', 'operator sessions')} ended; ` +
          `${count(reset.linksCancelled, 'unused operator sign-in link', 'unused operator sign-in links')} cancelled. ` +
          'The new token:\n',
      );
      process.stdout.write(`${reset.token}\n`);
    } finally {
      await db.close();
    }
  });

registerInstitutionCommands(program, admin, print);
registerRunCommands(program, admin, print);
registerHelpRequestCommands(program, admin, print);
registerTaxonomyCommands(program, admin, print);
registerWebhookCommands(program, admin, print);
registerPeopleCommands(program, admin, print);
registerPrivacyCommands(program, admin, print);
registerNotificationCommands(program, admin, print);
registerDevIdpCommand(program);
registerDevOneRosterCommand(program);
registerDevMailCommand(program);
registerPushCommands(program);
registerCalendarCommands(program, admin, print);
registerOneRosterSourceCommands(program, admin, print);
registerDemoCommand(program, admin);
suggestCommands(program);

export async function run(argv = process.argv): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // Commander has already printed its message (or the help, or the version).
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
    if (error instanceof CliError) {
      process.stderr.write(`ssp: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    if (isClientPackageOnly(error)) {
      process.stderr.write(
        'ssp: this command runs beside the service (a checkout or its deployment); this ssp is the client ' +
          'package, with push and the admin commands (docs/ssp-push.md)\n',
      );
      process.exit(EXIT.usage);
    }
    if (error instanceof ConfigError || error instanceof DatabaseInUseError) {
      process.stderr.write(`ssp: ${error.message}\n`);
      process.exit(EXIT.failed);
    }
    throw error;
  }
}

/** A server-side module missing: the client package (src/cli/pack/) does not ship it. */
function isClientPackageOnly(error: unknown): boolean {
  const { code, url } = error as { code?: unknown; url?: unknown };
  return code === 'ERR_MODULE_NOT_FOUND' && typeof url === 'string' && url.includes('/ssp-cli/src/');
}

if (import.meta.main) await run();
