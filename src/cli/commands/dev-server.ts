// What the development servers of the CLI (dev-idp, dev-mail, dev-oneroster) share: a port and a
// loopback host option, the port read as a number, and running until Ctrl+C or a stop signal.
import type { Command } from 'commander';
import { checkAddress } from '../../lib/outbound-url.ts';
import { CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';

/** The command of a development server, with its `--port` (defaulting to `port`) and `--host` options. */
export function devServerCommand(
  program: Command,
  command: { name: string; description: string; port: string; portHelp?: string },
): Command {
  return program
    .command(command.name)
    .description(command.description)
    .option('--port <port>', command.portHelp ?? 'port to listen on (0 picks a free one)', command.port)
    .option('--host <host>', 'loopback address to listen on', '127.0.0.1');
}

/** Whether `host` is a loopback address (or localhost), all a development server may listen on. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const verdict = checkAddress(host, { allowLoopback: true });
  return verdict.ok && verdict.loopback;
}

/** Throws a usage error unless `host` is loopback; `what` names the server in the message. */
export function requireLoopback(host: string, what: string): void {
  if (!isLoopbackHost(host))
    throw new CliError(`${what} listens on loopback only, not on ${host}`, EXIT.usage);
}

/** A port option as a number (0 picks a free one); anything else is a usage error naming it. */
export function portOption(value: string, name = 'port'): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`invalid ${name}: ${value}`, EXIT.usage);
  return port;
}

/** Prints a line to standard output (an empty one without an argument). */
export const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Resolves on SIGINT (Ctrl+C) or SIGTERM, when a development server should close. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}
