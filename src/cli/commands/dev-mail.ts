// ssp dev-mail: a development mail catcher for trying notification emails locally. Listens on
// loopback only, prints each message as it arrives and lists them on a small web page; never for
// production.
import type { Command } from 'commander';
import { CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { devServerCommand, out, portOption, untilStopped } from './dev-server.ts';

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];

export function registerDevMailCommand(program: Command): void {
  devServerCommand(program, {
    name: 'dev-mail',
    description: 'Start a development mail catcher that prints notification emails (development only)',
    port: '1025',
    portHelp: 'SMTP port to listen on (0 picks a free one)',
  })
    .option('--http-port <port>', 'port of the web page listing the mail (0 picks a free one)', '1080')
    .action(async (options: { port: string; httpPort: string; host: string }) => {
      const port = portOption(options.port);
      const httpPort = portOption(options.httpPort, 'http port');
      if (!LOOPBACK.includes(options.host))
        throw new CliError(`the mail catcher listens on loopback only, not on ${options.host}`, EXIT.usage);
      const { startDevMail } = await import('../../dev-mail/dev-mail.ts');
      const catcher = await startDevMail({
        smtpPort: port,
        httpPort,
        host: options.host,
        onMail: (mail) => {
          out(`--- ${mail.at.toISOString()} from ${mail.from} to ${mail.to.join(', ')}`);
          out(`Subject: ${mail.subject}`);
          out();
          out(mail.text.trimEnd());
          out();
        },
      });
      out('*** DEVELOPMENT ONLY: this catches mail and sends nothing on. ***');
      out();
      out('Run the service with:');
      out(`  SMTP_URL=${catcher.smtpUrl}`);
      out('  SMTP_FROM="Student support <support@localhost>"');
      out();
      out(`Caught mail is printed here and listed at ${catcher.pageUrl}`);
      out('Press Ctrl+C to stop.');
      out();
      await untilStopped();
      await catcher.close();
    });
}
