// ssp demo: a product one can try in two commands (docs/demo.md). With --serve (npm run demo)
// it starts everything itself; without, it fills a service that is already running.
import type { Command } from 'commander';
import { type AdminCall, CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';

interface DemoFlags {
  slug: string;
  idp: string;
  students: string;
  serve?: boolean;
  port: string;
  idpPort: string;
  dataDir?: string;
}

export function registerDemoCommand(program: Command, admin: () => AdminCall): void {
  program
    .command('demo')
    .description(
      'A believable demo institution and how to sign in as each role: with --serve, a whole demo service in one process; without, fills a running service',
    )
    .option(
      '--serve',
      'start the embedded service, the development identity provider and a calendar feed here, fill them, and run until Ctrl-C',
    )
    .option('--port <port>', "--serve: the service's port", '3000')
    .option('--idp-port <port>', "--serve: the identity provider's port", '4000')
    .option(
      '--data-dir <dir>',
      '--serve: keep the demo database here (default: a new one, deleted on Ctrl-C)',
    )
    .option('--slug <slug>', "the demo institution's slug", 'northbridge-demo')
    .option('--idp <url>', 'the development identity provider (npx ssp dev-idp)', 'http://127.0.0.1:4000')
    .option('--students <n>', 'how many students', '60')
    .addHelpText(
      'after',
      '\nTry it:\n  npm ci && npm run demo                     # everything in one process; Ctrl-C stops it\n' +
        'Or fill a service that is already running:\n' +
        '  ALLOW_LOOPBACK_OUTBOUND=true npm start     # prints the operator token\n' +
        '  npx ssp dev-idp &                          # the development identity provider\n' +
        '  SSP_OPERATOR_TOKEN=ssp_op_… npx ssp demo\nSee docs/demo.md.',
    )
    .action(async (o: DemoFlags) => {
      const students = Number(o.students);
      if (!Number.isInteger(students) || students < 6 || students > 5000)
        throw new CliError('--students takes a whole number from 6 to 5000', EXIT.usage);
      const log = (line: string) => process.stdout.write(`${line}\n`);
      if (o.serve) {
        const { serveDemo } = await import('../demo/serve.ts');
        await serveDemo({
          slug: o.slug,
          students,
          port: portOf('--port', o.port),
          idpPort: portOf('--idp-port', o.idpPort),
          dataDir: o.dataDir,
          log,
        });
        // Whatever a worker left scheduled, the demo is over.
        process.exit(EXIT.ok);
      }
      const { fillDemo } = await import('./demo.ts');
      await fillDemo(admin(), { url: program.opts().url as string, slug: o.slug, idp: o.idp, students, log });
    });
}

function portOf(flag: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`${flag} takes a port number from 0 to 65535 (0: any free port)`, EXIT.usage);
  return port;
}
