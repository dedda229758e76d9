// A mistyped command answers with the nearest command, in one line, instead of commander's
// whole help: `ssp pusj` -> `ssp: unknown command "pusj"; did you mean "ssp push"?`.
import type { Command } from 'commander';
import { editDistance } from '../lib/suggest.ts';
import { CliError } from './admin-client.ts';
import { EXIT } from './exit-codes.ts';

/** The full name of a command, as typed: `ssp runs list`. */
function fullName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Installs the suggestion on `program` and every command below it that has subcommands. */
export function suggestCommands(program: Command): void {
  const visit = (command: Command) => {
    if (command.commands.length === 0) return;
    command.on('command:*', (operands: string[]) => {
      const typed = operands[0] ?? '';
      const known = command.commands.flatMap((c) => [c.name(), ...c.aliases()]);
      const near = nearest(typed, known);
      const here = fullName(command);
      throw new CliError(
        `unknown command "${typed}"${near ? `; did you mean "${here} ${near}"?` : ''} (${here} --help lists the commands)`,
        EXIT.usage,
      );
    });
    for (const child of command.commands) visit(child);
  };
  visit(program);
}

/**
 * The closest command name: within two edits (a swapped pair of letters, "lsit", is two) or
 * one edit per three characters, whichever allows more. Commands are few and a wrong guess
 * costs one glance, so this is more lenient than closestName() for fields.
 */
function nearest(typed: string, known: string[]): string | undefined {
  if (typed.length > 100) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name);
    const allowed = Math.max(2, Math.floor(Math.max(typed.length, name.length) / 3));
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
