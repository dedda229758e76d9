// `ssp notifications`: through the admin API on a real socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { invitePerson } from '../helpers/people.ts';

const server = cliServer();
const ssp = server.ssp;

test('set the crisis recipients, read who is told and the recent notifications', async () => {
  const tenant = await seedTenant(server.ctx);
  const kai = await invitePerson(server.ctx, tenant, { roles: ['staff'], name: 'Kai Lee' });
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
