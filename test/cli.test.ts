// The ssp CLI against a real server on a real socket.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { OPERATOR_TOKEN } from './helpers/app.ts';
import { sspBin as bin, cliServer } from './helpers/cli.ts';

const run = promisify(execFile);
const server = cliServer();
const ssp = server.ssp;

test('admin commands go through the HTTP API', async () => {
  const institution = await ssp('institutions', 'create', 'cli-college', 'CLI College');
  assert.equal(institution.slug, 'cli-college');
  const cohort = await ssp('cohorts', 'create', 'cli-college', 'Spring', '--clock', 'individual');
  assert.equal(cohort.clock, 'individual');
  const secret = await ssp('roster-secret', 'issue', 'cli-college');
  assert.match(secret.secret, /^ssp_roster_/);
  assert.equal((await ssp('roster-secret', 'status', 'cli-college')).state, 'active');
  assert.deepEqual((await ssp('students', 'cli-college')).items, []);
  assert.deepEqual((await ssp('runs', 'list', 'cli-college')).items, []);
});

test('errors are reported with their code and a non-zero exit', async () => {
  await assert.rejects(
    run(process.execPath, [bin, '--url', server.url, 'cohorts', 'list', 'no-such-college'], {
      env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN },
    }),
    (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 65);
      assert.match(error.stderr, /404 institution_not_found/);
      return true;
    },
  );
  await assert.rejects(
    run(process.execPath, [bin, '--url', server.url, 'institutions', 'list'], {
      env: { ...process.env, SSP_OPERATOR_TOKEN: 'wrong' },
    }),
    /401 unauthorized/,
  );
});
