// The notifications admin API's refusals: bad input is a 400 naming the field, never a 5xx, and
// nothing changes; another institution's people cannot be chosen.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { invitePerson, personBrowser } from '../helpers/people.ts';

describeEachDatabase('notifications API: refusals', (ctx) => {
  test('crisis recipients: each bad entry is named, and nothing changes', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    const kai = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    const stranger = await invitePerson(ctx(), other, { roles: ['admin'] });
    const url = `/admin/v1/institutions/${tenant.slug}/notification-recipients`;
    assert.equal((await ctx().admin('PUT', url, { crisis_recipients: [kai.id] })).statusCode, 200);
    const cases: [unknown, number, string | undefined][] = [
      [{}, 400, undefined],
      [{ crisis_recipients: 'x' }, 400, undefined],
      [{ crisis_recipients: [123] }, 400, 'crisis_recipients[0]'],
      [{ crisis_recipients: [kai.id, 'not-a-uuid'] }, 400, 'crisis_recipients[1]'],
      [{ crisis_recipients: [randomUUID()] }, 400, 'crisis_recipients[0]'],
      [{ crisis_recipients: [stranger.id] }, 400, 'crisis_recipients[0]'],
      [{ crisis_recipients: Array.from({ length: 101 }, () => randomUUID()) }, 400, 'crisis_recipients'],
    ];
    for (const [body, status, field] of cases) {
      const response = await ctx().admin('PUT', url, body);
      assert.equal(response.statusCode, status, `${JSON.stringify(body).slice(0, 80)}: ${response.body}`);
      if (field) assert.equal(response.json().field, field);
    }
    const shown = (await ctx().admin('GET', url)).json();
    assert.deepEqual(
      shown.people.map((p: { name: string; crisis: boolean }) => [p.name, p.crisis]),
      [['Kai Lee', true]],
    );
    // The same id twice counts once.
    const twice = await ctx().admin('PUT', url, { crisis_recipients: [kai.id, kai.id.toUpperCase()] });
    assert.equal(twice.statusCode, 200, twice.body);
  });

  test('recent notifications: an unknown state or limit is a 400; own settings need both booleans', async () => {
    const tenant = await seedTenant(ctx());
    const list = `/admin/v1/institutions/${tenant.slug}/notifications`;
    const bogus = await ctx().admin('GET', `${list}?state=bogus`);
    assert.equal(bogus.statusCode, 400);
    assert.equal(bogus.json().field, 'state');
    assert.equal((await ctx().admin('GET', `${list}?limit=0`)).statusCode, 400);
    assert.equal((await ctx().admin('GET', `${list}?limit=201`)).statusCode, 400);
    assert.equal((await ctx().admin('GET', `${list}?limit=200`)).statusCode, 200);

    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    const own = `/admin/v1/institutions/${tenant.slug}/me/notifications`;
    assert.equal((await staff.request('PUT', own, { any_new_request: true })).statusCode, 400);
    assert.equal(
      (await staff.request('PUT', own, { any_new_request: 'yes', assigned_to_me: false })).statusCode,
      400,
    );
    const fine = await staff.request('PUT', own, { any_new_request: true, assigned_to_me: true });
    assert.equal(fine.statusCode, 200, fine.body);
    // Staff may not choose crisis recipients.
    const refused = await staff.request(
      'PUT',
      `/admin/v1/institutions/${tenant.slug}/notification-recipients`,
      {
        crisis_recipients: [staff.personId],
      },
    );
    assert.equal(refused.statusCode, 403);
  });
});
