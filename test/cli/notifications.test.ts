// `ssp notifications`: through the admin API on a real socket.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { runSsp } from '../helpers/cli.ts';
import { invitePerson } from '../helpers/people.ts';

let ctx: TestContext;
let url: string;

before(async () => {
  ctx = await startTestApp('pglite');
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx.close());

async function ssp(...args: string[]) {
  const stdout = await runSsp(url, args);
  return JSON.parse(stdout);
}

test('set the crisis recipients, read who is told and the recent notifications', async () => {
  const tenant = await seedTenant(ctx);
  const kai = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Kai Lee' });
  const set = await ssp('notifications', 'set-crisis-recipients', tenant.slug, kai.id);
  assert.equal(set.email.enabled, false);
  assert.deepEqual(
    set.people.map((p: { name: string; crisis: boolean }) => [p.name, p.crisis]),
    [['Kai Lee', true]],
  );
  const shown = await ssp('notifications', 'recipients', tenant.slug);
  assert.deepEqual(shown, set);
  const list = await ssp('notifications', 'list', tenant.slug, '--state', 'failed', '--limit', '5');
  assert.deepEqual(list.items, []);
  const cleared = await ssp('notifications', 'set-crisis-recipients', tenant.slug);
  assert.equal(cleared.people[0].crisis, false);
});
