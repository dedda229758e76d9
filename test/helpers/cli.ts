// The `ssp` command as a person runs it: a real subprocess of bin/ssp.js against a running
// server's URL, with the operator token (the one runner of every CLI test that needs one).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before } from 'node:test';
import { promisify } from 'node:util';
import { OPERATOR_TOKEN, type StartOptions, startTestApp, type TestContext } from './app.ts';
import { listed } from './roster.ts';

const run = promisify(execFile);
export const sspBin = path.resolve(import.meta.dirname, '../../bin/ssp.js');

/** Runs `ssp --url <url> ...args` and returns what it printed. */
export async function runSsp(url: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [sspBin, '--url', url, ...args], {
    env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN, ...env },
  });
  return stdout;
}

/**
 * A test app listening on a free port for a file of CLI tests (started before them, closed
 * after), with `ssp` bound to its URL and its JSON output parsed.
 */
export const cliServer = (options: StartOptions = {}) =>
  listening(() => startTestApp('pglite', options), true);

/** An institution's listing (`listed`), once the test server is started. */
function listOf(ctx: TestContext | undefined, slug: string, what: string) {
  if (!ctx) throw new Error('the test server is not started yet');
  return listed(ctx, slug, what);
}

/**
 * The app of a suite that runs on each database (describeEachDatabase's `context`), listening on
 * a free port before the tests; closing it stays with the suite.
 */
export const listeningApp = (context: () => TestContext) => listening(context, false);

/** The app `start` gives, listening on a free port before the tests (and closed after them, if `close`). */
function listening(start: () => TestContext | Promise<TestContext>, close: boolean) {
  let ctx: TestContext | undefined;
  let url = '';
  before(async () => {
    ctx = await start();
    url = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  });
  if (close) after(() => ctx?.close());
  return {
    get ctx(): TestContext {
      if (!ctx) throw new Error('the test server is not listening yet');
      return ctx;
    },
    get url() {
      return url;
    },
    ssp: async (...args: string[]) => JSON.parse(await runSsp(url, args)),
    list: (slug: string, what: string) => listOf(ctx, slug, what),
  };
}
