// The `ssp` command as a person runs it: a real subprocess of bin/ssp.js against a running
// server's URL, with the operator token (the one runner of every CLI test that needs one).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { OPERATOR_TOKEN } from './app.ts';

const run = promisify(execFile);
export const sspBin = path.resolve(import.meta.dirname, '../../bin/ssp.js');

/** Runs `ssp --url <url> ...args` and returns what it printed. */
export async function runSsp(url: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [sspBin, '--url', url, ...args], {
    env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN, ...env },
  });
  return stdout;
}
