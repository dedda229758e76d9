// ssp dev-oneroster: a development OneRoster 1.2 REST provider serving generated students,
// courses, classes and enrollments, for trying the service's OneRoster source without a SIS.
// Listens on loopback only; never for production.
import type { Command } from 'commander';
import { CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { devServerCommand, out, portOption, requireLoopback, untilStopped } from './dev-server.ts';

export function registerDevOneRosterCommand(program: Command): void {
  devServerCommand(program, {
    name: 'dev-oneroster',
    description: 'Start a development OneRoster 1.2 REST provider with generated students (development only)',
    port: '4100',
  })
    .option('--students <n>', 'students to generate', '200')
    .option('--enrolments-per-student <n>', 'classes each student is enrolled in', '3')
    .action(
      async (options: { port: string; host: string; students: string; enrolmentsPerStudent: string }) => {
        const port = portOption(options.port);
        const students = Number(options.students);
        const perStudent = Number(options.enrolmentsPerStudent);
        if (!Number.isInteger(students) || students < 0)
          throw new CliError('--students takes a whole number', EXIT.usage);
        if (!Number.isInteger(perStudent) || perStudent < 1)
          throw new CliError('--enrolments-per-student takes a whole number', EXIT.usage);
        requireLoopback(options.host, 'the development provider');
        const [{ generateRoster }, { startOneRosterProvider }] = await Promise.all([
          import('../../dev-oneroster/data.ts'),
          import('../../dev-oneroster/provider.ts'),
        ]);
        const provider = await startOneRosterProvider({
          data: generateRoster({
            students,
            courses: Math.max(2, perStudent * 4),
            enrolmentsPerStudent: perStudent,
          }),
          port,
          host: options.host,
        });
        out('*** DEVELOPMENT ONLY, NEVER FOR PRODUCTION: generated data, a fixed client secret. ***');
        out();
        out(`base URL:      ${provider.baseUrl}`);
        out(`token URL:     ${provider.tokenUrl}`);
        out(`client_id:     ${provider.clientId}`);
        out(`client_secret: ${provider.clientSecret}`);
        out(`students:      ${students}, each in ${perStudent} classes`);
        out();
        out(
          'OneRoster source settings (PUT /admin/v1/institutions/{slug}/oneroster-source, with your cohort_id):',
        );
        out(
          JSON.stringify({
            base_url: provider.baseUrl,
            token_url: provider.tokenUrl,
            client_id: provider.clientId,
            client_secret: provider.clientSecret,
          }),
        );
        out();
        out(
          'The service must run with ALLOW_LOOPBACK_OUTBOUND=true to reach this plain-http loopback provider.',
        );
        out('Press Ctrl+C to stop.');
        await untilStopped();
        await provider.close();
      },
    );
}
