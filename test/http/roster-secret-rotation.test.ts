// Rolling the roster secret without a hard cut-over: a new secret may leave the current one
// working for up to 7 days (each with its own last use), the default still stops it at once,
// revoking ends both; the 90-day cadence is visible (age, due for rotation, the operator's list);
// the console offers the choice and shows both secrets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant } from '../helpers/app.ts';
import { operatorBrowser, personBrowser, postForm } from '../helpers/people.ts';

describeEachDatabase('roster secret rotation', (ctx) => {
  const push = (tenant: SeededTenant, token: string) =>
    ctx().request({
      method: 'POST',
      url: '/api/sis/sync',
      token,
      body: { cohort_id: tenant.cohortId, students: [{ email: 'a@example.edu', student_id_ext: 'A1' }] },
    });
  const status = async (tenant: SeededTenant) =>
    (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/roster-secret`)).json();
  const issue = (tenant: SeededTenant, body?: unknown) =>
    ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/roster-secret`, body);

  test('overlap, last use, the default cut-over, revocation and refusals', async () => {
    const tenant = await seedTenant(ctx());
    const first = tenant.rosterSecret as string;
    assert.equal((await status(tenant)).last_used_at, null);
    assert.equal((await push(tenant, first)).statusCode, 200);
    const used = await status(tenant);
    assert.ok(used.last_used_at, 'the push is recorded as the secret’s last use');
    assert.equal(used.age_days, 0);
    assert.equal(used.due_for_rotation, false);
    assert.equal(used.previous, null);

    // A new secret with three days of overlap: both work meanwhile.
    const second = await issue(tenant, { previous_secret_valid_days: 3 });
    assert.equal(second.statusCode, 201, second.body);
    const expires = Date.parse(second.json().previous_secret_expires_at);
    assert.ok(Math.abs(expires - (Date.now() + 3 * 86_400_000)) < 60_000);
    assert.equal((await push(tenant, first)).statusCode, 200, 'the previous secret still works');
    assert.equal((await push(tenant, second.json().secret)).statusCode, 200, 'the new one works');
    const both = await status(tenant);
    assert.equal(Date.parse(both.previous.expires_at), expires);
    assert.ok(both.previous.last_used_at);
    assert.ok(both.last_used_at);

    // Past its expiry the previous secret is refused.
    await ctx().db.query(
      `UPDATE roster_secrets SET expires_at = now() - interval '1 second' WHERE institution_id = $1 AND expires_at IS NOT NULL`,
      [tenant.institutionId],
    );
    assert.equal((await push(tenant, first)).statusCode, 401);
    assert.equal((await status(tenant)).previous, null);

    // Another overlap, then the default: every older secret stops at once.
    const third = (await issue(tenant, { previous_secret_valid_days: 7 })).json();
    const fourth = await issue(tenant);
    assert.equal(fourth.statusCode, 201);
    assert.equal(fourth.json().previous_secret_expires_at, null);
    assert.equal((await push(tenant, second.json().secret)).statusCode, 401);
    assert.equal((await push(tenant, third.secret)).statusCode, 401);
    assert.equal((await push(tenant, fourth.json().secret)).statusCode, 200);

    // Revoking ends a previous secret still working too.
    const fifth = (await issue(tenant, { previous_secret_valid_days: 1 })).json();
    assert.equal(
      (await ctx().admin('DELETE', `/admin/v1/institutions/${tenant.slug}/roster-secret`)).statusCode,
      204,
    );
    assert.equal((await push(tenant, fourth.json().secret)).statusCode, 401);
    assert.equal((await push(tenant, fifth.secret)).statusCode, 401);

    // More than 7 days, a fraction or a stray field: refused, nothing changed.
    for (const body of [
      { previous_secret_valid_days: 8 },
      { previous_secret_valid_days: 1.5 },
      { days: 1 },
    ]) {
      const refused = await issue(tenant, body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
    }
    assert.equal((await status(tenant)).state, 'revoked');
  });

  test('the 90-day cadence: age, due for rotation, the operator’s list and pages', async () => {
    const tenant = await seedTenant(ctx());
    await ctx().db.query(
      `UPDATE roster_secrets SET created_at = now() - interval '91 days' WHERE institution_id = $1`,
      [tenant.institutionId],
    );
    const old = await status(tenant);
    assert.equal(old.age_days, 91);
    assert.equal(old.due_for_rotation, true);
    const due = await ctx().admin('GET', '/admin/v1/roster-secrets/due');
    assert.equal(due.statusCode, 200);
    assert.ok(due.json().items.some((d: { slug: string }) => d.slug === tenant.slug));
    const admin = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    assert.equal((await admin.request('GET', '/admin/v1/roster-secrets/due')).statusCode, 403);

    const page = async (browser: { cookie: string }, url: string) =>
      (await ctx().app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } })).body;
    assert.match(await page(admin, `/console/${tenant.slug}/`), /91 days old[\s\S]*due for rotation/);
    assert.match(await page(admin, `/console/${tenant.slug}/secrets`), /due for rotation/);
    const operator = await operatorBrowser(ctx());
    assert.match(
      await page(operator, '/console/'),
      /Roster secrets due for rotation[\s\S]*secrets">Institution /,
    );

    // The console's choice: asked first with the overlap kept, then issued; both secrets shown.
    const post = (form: Record<string, string>) =>
      postForm(ctx(), admin, `/console/${tenant.slug}/secrets/roster`, form);
    const asked = await post({ previous_secret_valid_days: '3' });
    assert.match(asked.body, /keeps working beside it for 3 days/);
    assert.match(asked.body, /name="previous_secret_valid_days" value="3"/);
    const shown = await post({ previous_secret_valid_days: '3', confirmed: 'yes' });
    assert.match(shown.body, /ssp_roster_/);
    assert.equal(
      (await push(tenant, tenant.rosterSecret as string)).statusCode,
      200,
      'the old one still works',
    );
    const secrets = await page(admin, `/console/${tenant.slug}/secrets`);
    assert.match(secrets, /The previous secret still works/);
    assert.match(secrets, /rotating it stops the old one at once/);
  });
});
