// ssp dev-idp: a development OpenID provider with demo people, for signing in to a local service
// without a real identity provider. Listens on loopback only; never for production.
import type { Command } from 'commander';
import { DEMO_PEOPLE, demoClient } from '../../dev-idp/demo.ts';
import { CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { devServerCommand, out, portOption, requireLoopback, untilStopped } from './dev-server.ts';

export function registerDevIdpCommand(program: Command): void {
  devServerCommand(program, {
    name: 'dev-idp',
    description:
      'Start a development OpenID provider with demo people (development only, never for production)',
    port: '4000',
  })
    .option(
      '--public-base-url <url>',
      "the service's PUBLIC_BASE_URL, for the redirect URI",
      process.env.PUBLIC_BASE_URL || 'http://localhost:3000',
    )
    .action(async (options: { port: string; host: string; publicBaseUrl: string }) => {
      const port = portOption(options.port);
      requireLoopback(options.host, 'the development provider');
      let base: URL;
      try {
        base = new URL(options.publicBaseUrl);
      } catch {
        throw new CliError(`invalid public base URL: ${options.publicBaseUrl}`, EXIT.usage);
      }
      const client = demoClient(base.href);
      const { startDevIdp } = await import('../../dev-idp/dev-idp.ts');
      const idp = await startDevIdp({ port, host: options.host, people: DEMO_PEOPLE, clients: [client] });
      out(
        '*** DEVELOPMENT ONLY, NEVER FOR PRODUCTION: anyone who reaches this provider signs in as anyone. ***',
      );
      out();
      out(`issuer:        ${idp.issuer}`);
      out(`client_id:     ${client.client_id}`);
      out(`client_secret: ${client.client_secret}`);
      out(`redirect URI:  ${client.redirect_uris[0]}`);
      out();
      out('Identity-provider settings (PUT /admin/v1/institutions/{slug}/identity-provider):');
      out(
        JSON.stringify({
          issuer: idp.issuer,
          client_id: client.client_id,
          client_secret: client.client_secret,
        }),
      );
      out();
      out('The service must run with ALLOW_LOOPBACK_OUTBOUND=true to reach this plain-http loopback issuer.');
      out();
      out('Demo people (subject, email, name):');
      for (const person of DEMO_PEOPLE)
        out(`  ${person.sub.padEnd(18)} ${person.email.padEnd(32)} ${person.name}`);
      out();
      out('Press Ctrl+C to stop.');
      await untilStopped();
      await idp.close();
    });
}
