// ssp push for cron and people, through the real binary (bin/ssp.js) against a real server:
// --json with the run ids, the exit codes of each kind of failure, the nearest command for a
// typo, and Ctrl-C typed in a real pseudo-terminal in the middle of a push.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { OPERATOR_TOKEN, seedTenant } from '../helpers/app.ts';
import { cliServer, sspBin } from '../helpers/cli.ts';
import { runInPty } from '../helpers/pty.ts';
import { csvText, scratchDir } from './push-helpers.ts';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function ssp(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Result> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [sspBin, ...args],
      { cwd, env: { ...process.env, SSP_URL: '', ...env } },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: number }).code : 0;
        resolve({ code: typeof code === 'number' ? code : -1, stdout, stderr });
      },
    ),
  );
}

/** `--url <url> push roster --cohort <cohort> <file> ...extra`: the command line these tests vary. */
const rosterPush = (url: string, cohort: string, file: string, ...extra: string[]) => [
  '--url',
  url,
  'push',
  'roster',
  '--cohort',
  cohort,
  file,
  ...extra,
];

const roster = (rows: number, bad = 0) =>
  csvText([
    ['email', 'student_id_ext', 'first_name', 'last_name', 'program_code'],
    ...Array.from({ length: rows }, (_, i) => [
      `s${i}@example.edu`,
      `S${i}`,
      `Given${i}`,
      `Family${i}`,
      'NOPE',
    ]),
    ...Array.from({ length: bad }, (_, i) => [`bad${i}-not-an-email`, `B${i}`, 'Bad', 'Row', '']),
  ]);

/** A proxy that forwards requests, holding the answer to POST number `holdAt` until closed. */
async function holdingProxy(target: string, holdAt: number, onHeld: () => void) {
  let posts = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'POST' && ++posts === holdAt) {
      onHeld();
      return;
    }
    const answer = await fetch(new URL(req.url!, target), {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
      body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('ssp push through the real binary', () => {
  const server = cliServer();

  test('--json prints the report with the run ids the service recorded, and the real push shows the warnings', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    fs.writeFileSync(path.join(dir, 'r.csv'), roster(3, 1));
    const env = { SSP_ROSTER_SECRET: tenant.rosterSecret };
    const args = rosterPush(server.url, tenant.cohortId, 'r.csv', '--page-size', '2');
    const r = await ssp([...args, '--json'], env, dir);
    assert.equal(r.code, 2, r.stderr);
    const body = JSON.parse(r.stdout);
    assert.equal(body.ok, false);
    assert.equal(body.exit_code, 2);
    assert.equal(body.dry_run, false);
    assert.equal(body.sections[0].created, 3);
    assert.equal(body.sections[0].rejected, 1);
    assert.equal(body.row_problems, 1);
    assert.equal(body.run_ids.length, 2, 'one run a page');
    assert.deepEqual(body.warnings.unknown_program_codes[0], {
      value: 'NOPE',
      rows: 3,
      first_places: ['r.csv:2', 'r.csv:3', 'r.csv:4'],
    });
    const runs = await ssp(
      ['--url', server.url, '--json', 'runs', 'list', tenant.slug],
      { SSP_OPERATOR_TOKEN: OPERATOR_TOKEN },
      dir,
    );
    const listed = JSON.parse(runs.stdout).items.map((run: { id: string }) => run.id);
    assert.deepEqual([...body.run_ids].sort(), [...listed].sort());

    // The table (no --json) names the same warning after a real push, as a dry run would.
    fs.writeFileSync(path.join(dir, 'r.csv'), roster(2));
    const table = await ssp(args, env, dir);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /Unknown program codes[^\n]*\(1\):\n[\s\S]*NOPE\s+2\s+r\.csv:2 r\.csv:3/);
  });

  test('exit codes tell usage, authentication, refused input and network apart', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    fs.writeFileSync(path.join(dir, 'r.csv'), roster(1));
    const env = { SSP_ROSTER_SECRET: tenant.rosterSecret };
    const push = (...extra: string[]) => rosterPush(server.url, tenant.cohortId, 'r.csv', ...extra);

    const usage = await ssp(push('--page-size', 'many'), env, dir);
    assert.equal(usage.code, 64, usage.stderr);
    const unknownOption = await ssp(push('--dry-rn'), env, dir);
    assert.equal(unknownOption.code, 64);
    assert.match(unknownOption.stderr, /unknown option '--dry-rn'/);

    const noSecret = await ssp(push(), { SSP_ROSTER_SECRET: '' }, dir);
    assert.equal(noSecret.code, 77);
    const wrongSecret = await ssp(push('--json'), { SSP_ROSTER_SECRET: 'ssp_roster_wrong' }, dir);
    assert.equal(wrongSecret.code, 77);
    assert.equal(JSON.parse(wrongSecret.stdout).exit_code, 77);

    const missing = await ssp(rosterPush(server.url, tenant.cohortId, 'nope.csv'), env, dir);
    assert.equal(missing.code, 65);
    const otherCohort = await ssp(
      rosterPush(server.url, '00000000-0000-4000-8000-000000000000', 'r.csv'),
      env,
      dir,
    );
    assert.equal(otherCohort.code, 65, otherCohort.stderr);
    assert.match(otherCohort.stderr, /404 cohort_not_found/);

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const network = await ssp(
      rosterPush(`http://127.0.0.1:${port}`, tenant.cohortId, 'r.csv', '--retries', '1'),
      env,
      dir,
    );
    assert.equal(network.code, 69, network.stderr);
    assert.match(network.stderr, /cannot reach/);

    const admin = { SSP_OPERATOR_TOKEN: OPERATOR_TOKEN };
    assert.equal((await ssp(['--url', server.url, 'runs', 'list', 'no-such-college'], admin, dir)).code, 65);
    assert.equal(
      (await ssp(['--url', server.url, 'runs', 'list', tenant.slug], { SSP_OPERATOR_TOKEN: 'x' }, dir)).code,
      77,
    );
  });

  test('a mistyped command suggests the nearest one in a line, not the whole command list', async () => {
    const dir = scratchDir();
    const typo = await ssp(['pusj'], {}, dir);
    assert.equal(typo.code, 64);
    assert.equal(
      typo.stderr,
      'ssp: unknown command "pusj"; did you mean "ssp push"? (ssp --help lists the commands)\n',
    );
    const nested = await ssp(['runs', 'lsit'], {}, dir);
    assert.equal(nested.code, 64);
    assert.match(nested.stderr, /did you mean "ssp runs list"\?/);
    assert.equal(nested.stderr.split('\n').length, 2, 'one line');
    const help = await ssp(['--help'], {}, dir);
    assert.match(
      help.stdout,
      /Exit codes:\n\s+0 [\s\S]*64\s+usage[\s\S]*65\s+refused input[\s\S]*69\s+network[\s\S]*77\s+authentication/,
    );
    const worker = await ssp(['worker', '--help'], {}, dir);
    for (const name of ['webhook deliveries', 'calendar fetches', 'notification emails', 'OneRoster pulls']) {
      assert.match(worker.stdout, new RegExp(name));
    }
  });

  test('Ctrl-C at a terminal stops the bar, shows the cursor, turns wrapping back on and says how to resume', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    fs.writeFileSync(path.join(dir, 'r.csv'), roster(30));
    let held: () => void = () => {};
    const heldNow = new Promise<void>((resolve) => {
      held = resolve;
    });
    const proxy = await holdingProxy(server.url, 2, () => held());
    try {
      const run = runInPty(
        [process.execPath, sspBin, ...rosterPush(proxy.url, tenant.cohortId, 'r.csv', '--page-size', '10')],
        { ...process.env, SSP_ROSTER_SECRET: tenant.rosterSecret },
        dir,
      );
      await heldNow;
      // The bar is drawn: the cursor hidden and wrapping off while it runs.
      while (!run.output.includes('\x1b[?25l')) await new Promise((r) => setTimeout(r, 50));
      run.interrupt();
      const { code, output } = await run.done;
      assert.equal(code, 130, output);
      const tail = output.slice(output.lastIndexOf('\x1b[?25l'));
      assert.ok(tail.includes('\x1b[?25h'), 'the cursor is shown again');
      assert.ok(tail.includes('\x1b[?7h'), 'line wrapping is on again');
      assert.match(
        output,
        /ssp push: interrupted\. 1 pages were answered and are recorded in \.ssp-push-state\.json; run the same command again to resume/,
      );
      assert.ok(fs.existsSync(path.join(dir, '.ssp-push-state.json')));
      // The same command resumes after the answered page (the proxy holds only the one answer).
      const resumed = await ssp(
        rosterPush(proxy.url, tenant.cohortId, 'r.csv', '--page-size', '10'),
        { SSP_ROSTER_SECRET: tenant.rosterSecret },
        dir,
      );
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming: 1 pages were answered/);
    } finally {
      await proxy.close();
    }
  });
});
