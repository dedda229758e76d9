// What the development servers of the CLI (dev-mail, dev-oneroster) share: a port option read
// as a number, and running until Ctrl+C or a stop signal.
import { CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';

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
