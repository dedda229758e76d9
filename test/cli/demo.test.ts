// ssp demo against a real server and the development identity provider: a believable
// institution, through the real binary, and sign-in wired to the provider.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { DEMO_PEOPLE, demoClient } from '../../src/dev-idp/demo.ts';
import { type DevIdp, startDevIdp } from '../../src/dev-idp/dev-idp.ts';
import { OPERATOR_TOKEN } from '../helpers/app.ts';
import { cliServer, sspBin } from '../helpers/cli.ts';

const run = promisify(execFile);
const server = cliServer({ config: { allowLoopbackOutbound: true } });
let idp: DevIdp;
before(async () => {
  idp = await startDevIdp({
    host: '127.0.0.1',
    port: 0,
    people: [...DEMO_PEOPLE],
    clients: [demoClient(server.url)],
  });
});
after(() => idp?.close());

test('ssp demo fills an institution and prints how to sign in as each role', async () => {
  const { stdout } = await run(process.execPath, [sspBin, '--url', server.url, 'demo', '--idp', idp.issuer], {
    env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN },
  });
  assert.match(stdout, /60 students, \d+ enrolments/);
  assert.match(stdout, /identity provider http/);
  assert.match(stdout, new RegExp(`Sign in at ${server.url}/auth/sign-in`));
  for (const email of ['admin@example.edu', 'integrations@example.edu', 'staff@example.edu'])
    assert.match(stdout, new RegExp(email));

  const get = async (path: string) =>
    (await server.ctx.admin('GET', `/admin/v1/institutions/northbridge-demo${path}`)).json();
  assert.equal((await get('/students?limit=1000')).items.length, 60);
  assert.equal((await get('/programs')).items.length, 4);
  const statuses = new Set((await get('/help-requests')).items.map((r: { status: string }) => r.status));
  assert.deepEqual([...statuses].sort(), ['ack', 'in_progress', 'new', 'resolved']);
  const runs = (await get('/runs')).items as { error_count: number }[];
  assert.ok(
    runs.some((r) => r.error_count > 0),
    'pushes with row errors',
  );
  assert.equal((await get('/people')).items.length, 3);

  // Sign-in is wired to the provider: the institution's sign-in goes there.
  const signIn = await server.ctx.app.inject({ method: 'GET', url: '/auth/northbridge-demo/sign-in' });
  assert.ok([302, 303].includes(signIn.statusCode), signIn.body);
  assert.ok(String(signIn.headers.location).startsWith(idp.issuer));
});
