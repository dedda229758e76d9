// Who may change whose roles and permissions: Manage integrations is granted or taken away only by
// someone holding it (or the operator), nobody changes their own roles or permissions, and the
// console's person page shows the refusal next to the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { invitePerson, personBrowser, postForm } from '../helpers/people.ts';

describeEachDatabase('granting roles and permissions', (ctx) => {
  test('a plain admin cannot grant themselves Manage integrations, nor change their own roles', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const base = `/admin/v1/institutions/${tenant.slug}/people`;
    const self = await admin.request('PATCH', `${base}/${admin.personId}`, {
      permissions: ['manage_integrations'],
    });
    assert.equal(self.statusCode, 403, self.body);
    assert.equal(self.json().error, 'manage_integrations_required');
    assert.equal(self.json().field, 'permissions');
    const me = (await admin.request('GET', '/admin/v1/me')).json();
    assert.deepEqual(me.permissions, []);
    const secret = await admin.request('POST', `/admin/v1/institutions/${tenant.slug}/help-sync-secret`);
    assert.equal(secret.statusCode, 403);

    // Own roles: neither added nor dropped; the name may change.
    const ownRoles = await admin.request('PATCH', `${base}/${admin.personId}`, { roles: ['admin', 'staff'] });
    assert.equal(ownRoles.statusCode, 403, ownRoles.body);
    assert.equal(ownRoles.json().error, 'own_roles_unchangeable');
    const ownName = await admin.request('PATCH', `${base}/${admin.personId}`, {
      name: 'Renamed Me',
      roles: ['admin'],
      permissions: [],
    });
    assert.equal(ownName.statusCode, 200, ownName.body);
    assert.equal(ownName.json().name, 'Renamed Me');

    // An integrations admin cannot change their own grants either (dropping admin included).
    const manager = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const demote = await manager.request('PATCH', `${base}/${manager.personId}`, { permissions: [] });
    assert.equal(demote.statusCode, 403);
    assert.equal(demote.json().error, 'own_roles_unchangeable');
  });

  test('Manage integrations is granted, taken away and invited with only by its holders or the operator', async () => {
    const tenant = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}/people`;
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const manager = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const colleague = await invitePerson(ctx(), tenant, { roles: ['admin'] });

    const byAdmin = await admin.request('PATCH', `${base}/${colleague.id}`, {
      permissions: ['manage_integrations'],
    });
    assert.equal(byAdmin.statusCode, 403);
    assert.equal(byAdmin.json().error, 'manage_integrations_required');
    const inviteByAdmin = await admin.request('POST', base, {
      email: 'new-integrations@example.edu',
      name: 'New',
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    assert.equal(inviteByAdmin.statusCode, 403);
    assert.equal(inviteByAdmin.json().error, 'manage_integrations_required');

    const byManager = await manager.request('PATCH', `${base}/${colleague.id}`, {
      permissions: ['manage_integrations'],
    });
    assert.equal(byManager.statusCode, 200, byManager.body);
    // Taking it away (directly, or by dropping the admin role it needs) needs it too.
    const removeByAdmin = await admin.request('PATCH', `${base}/${colleague.id}`, { permissions: [] });
    assert.equal(removeByAdmin.statusCode, 403);
    const demoteByAdmin = await admin.request('PATCH', `${base}/${colleague.id}`, {
      roles: ['staff'],
      permissions: [],
    });
    assert.equal(demoteByAdmin.statusCode, 403);
    // Other changes to a holder stay open to any admin.
    const renamed = await admin.request('PATCH', `${base}/${colleague.id}`, { name: 'Still Integrations' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(renamed.json().permissions, ['manage_integrations']);

    const byOperator = await ctx().admin('PATCH', `${base}/${colleague.id}`, { permissions: [] });
    assert.equal(byOperator.statusCode, 200, byOperator.body);
    const inviteByOperator = await ctx().admin('POST', base, {
      email: 'op-invited@example.edu',
      name: 'Op Invited',
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    assert.equal(inviteByOperator.statusCode, 201, inviteByOperator.body);
  });

  test("the console's person page shows the refusal next to the permission", async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Plain Admin' });
    const page = `/console/${tenant.slug}/people/${admin.personId}`;
    const answer = await postForm(ctx(), admin, page, [
      ['name', 'Plain Admin'],
      ['roles', 'admin'],
      ['permissions', 'manage_integrations'],
    ]);
    assert.equal(answer.statusCode, 403, answer.body.slice(0, 500));
    assert.match(answer.headers['content-type'] as string, /text\/html/);
    assert.match(answer.body, /<form method="post" action="[^"]*\/people\/[^"]*"/, 'the form is shown again');
    assert.match(answer.body, /field-error[^>]*>[^<_]*Manage integrations[^<_]*</);
    const me = (await admin.request('GET', '/admin/v1/me')).json();
    assert.deepEqual(me.permissions, []);
  });
});
