// ssp oneroster-source: the OneRoster source's settings from the command line, through the real
// binary against a real server and the development OneRoster provider on loopback.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { OPERATOR_TOKEN, seedTenant } from '../helpers/app.ts';
import { cliServer, sspBin } from '../helpers/cli.ts';
import {
  generateRoster,
  type OneRosterProvider,
  startOneRosterProvider,
} from '../helpers/oneroster-provider.ts';

const server = cliServer({ config: { allowLoopbackOutbound: true } });
let provider: OneRosterProvider;
before(async () => {
  provider = await startOneRosterProvider({ data: generateRoster({ students: 3 }) });
});
after(() => provider?.close());

function ssp(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [sspBin, '--url', server.url, '--json', ...args],
      { env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    ),
  );
}

test('set, show, pull, pull-status and remove, with the client secret from the environment only', async () => {
  const tenant = await seedTenant(server.ctx);
  const none = await ssp(['oneroster-source', 'show', tenant.slug]);
  assert.equal(none.code, 65);
  assert.match(none.stderr, /404/);

  const settings = [
    'oneroster-source',
    'set',
    tenant.slug,
    '--base-url',
    provider.baseUrl,
    '--token-url',
    provider.tokenUrl,
    '--client-id',
    provider.clientId,
    '--cohort',
    tenant.cohortId,
    '--pull-every',
    'off',
  ];
  const noSecret = await ssp(settings);
  assert.equal(noSecret.code, 65, 'the first time needs the secret');
  const set = await ssp(settings, { SSP_ONEROSTER_CLIENT_SECRET: provider.clientSecret });
  assert.equal(set.code, 0, set.stderr);
  assert.equal(JSON.parse(set.stdout).client_secret_set, true);
  assert.ok(!set.stdout.includes(provider.clientSecret));

  const shown = JSON.parse((await ssp(['oneroster-source', 'show', tenant.slug])).stdout);
  assert.equal(shown.base_url, provider.baseUrl);
  assert.equal(shown.next_pull_at, null);

  const pull = await ssp(['oneroster-source', 'pull', tenant.slug, '--mode', 'full']);
  assert.equal(pull.code, 0, pull.stderr);
  const asked = JSON.parse(pull.stdout);
  assert.ok(['queued', 'running', 'ok'].includes(asked.status));
  const status = await ssp(['oneroster-source', 'pull-status', tenant.slug, asked.run_id]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout).run_id, asked.run_id);

  const badMinutes = await ssp([...settings.slice(0, -1), 'soon']);
  assert.equal(badMinutes.code, 64);
  const removed = await ssp(['oneroster-source', 'remove', tenant.slug]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal((await ssp(['oneroster-source', 'show', tenant.slug])).code, 65);
});
