// ssp demo: a product one can try in two commands (docs/demo.md).
import type { Command } from 'commander';
import { type AdminCall, CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';

export function registerDemoCommand(program: Command, admin: () => AdminCall): void {
  program
    .command('demo')
    .description(
      'Fill a running service with a believable demo institution and print how to sign in as each role',
    )
    .option('--slug <slug>', "the demo institution's slug", 'northbridge-demo')
    .option('--idp <url>', 'the development identity provider (npx ssp dev-idp)', 'http://127.0.0.1:4000')
    .option('--students <n>', 'how many students', '60')
    .addHelpText(
      'after',
      '\nTry it:\n  ALLOW_LOOPBACK_OUTBOUND=true npm start     # prints the operator token\n' +
        '  npx ssp dev-idp &                          # the development identity provider\n' +
        '  SSP_OPERATOR_TOKEN=ssp_op_… npx ssp demo\nSee docs/demo.md.',
    )
    .action(async (o: { slug: string; idp: string; students: string }) => {
      const students = Number(o.students);
      if (!Number.isInteger(students) || students < 6 || students > 5000)
        throw new CliError('--students takes a whole number from 6 to 5000', EXIT.usage);
      const { fillDemo } = await import('./demo.ts');
      await fillDemo(admin(), {
        url: program.opts().url as string,
        slug: o.slug,
        idp: o.idp,
        students,
        log: (line) => process.stdout.write(`${line}\n`),
      });
    });
}
