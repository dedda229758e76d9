// The console without a browser: assets served by the service, security headers, no inline
// script, the session checks of its scope, CSRF on form posts, and every refusal a page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { operatorBrowser, personBrowser, studentBrowser } from '../helpers/people.ts';

describeEachDatabase('console scope', (ctx) => {
  test('vendor assets come from this service; pages carry a strict CSP and no inline script', async () => {
    for (const asset of [
      '/assets/vendor/htmx.min.js',
      '/assets/vendor/uPlot.iife.min.js',
      '/assets/vendor/uPlot.min.css',
      '/assets/console.js',
      '/assets/chart.js',
    ]) {
      const response = await ctx().request({ method: 'GET', url: asset });
      assert.equal(response.statusCode, 200, asset);
    }
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const page = await admin.request('GET', `/console/${tenant.slug}/runs`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.headers['content-security-policy'] as string, /script-src 'self'/);
    assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
    assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(page.body, /\sstyle=/, 'no inline style');
    assert.doesNotMatch(page.body, /https?:\/\/(?!127\.0\.0\.1)/, 'nothing from another host');
  });

  test('signed out: to sign-in with the way back; a student: to the student pages', async () => {
    const tenant = await seedTenant(ctx());
    const out = await ctx().request({ method: 'GET', url: `/console/${tenant.slug}/inbox?status=new` });
    assert.equal(out.statusCode, 303);
    assert.equal(
      out.headers.location,
      `/auth/${tenant.slug}/sign-in?return_to=${encodeURIComponent(`/console/${tenant.slug}/inbox?status=new`)}`,
    );
    const student = await studentBrowser(ctx(), tenant);
    const asStudent = await student.request('GET', '/console/');
    assert.equal(asStudent.statusCode, 303);
    assert.equal(asStudent.headers.location, '/app/');
  });

  test('another tenant and unknown pages are the not-found page; a refused role is a 403 page', async () => {
    const mine = await seedTenant(ctx());
    const theirs = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), mine, { roles: ['admin'] });
    for (const url of [
      `/console/${theirs.slug}/`,
      `/console/${theirs.slug}/secrets`,
      `/console/${theirs.slug}/webhooks`,
      `/console/${theirs.slug}/full-syncs`,
      '/console/nowhere/people',
      `/console/${mine.slug}/no-such-page`,
    ]) {
      const response = await admin.request('GET', url);
      assert.equal(response.statusCode, 404, url);
      assert.match(response.headers['content-type'] as string, /text\/html/);
      assert.ok(!response.body.includes(`Institution ${theirs.slug}`));
    }
    const staff = await personBrowser(ctx(), mine, { roles: ['staff'] });
    const refused = await staff.request('GET', `/console/${mine.slug}/people`);
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /<code>forbidden<\/code>/);
    // Webhooks need Manage integrations, full syncs an admin: the API refuses, the page says so.
    assert.equal((await staff.request('GET', `/console/${mine.slug}/full-syncs`)).statusCode, 403);
    assert.equal((await admin.request('GET', `/console/${mine.slug}/webhooks`)).statusCode, 403);
    assert.equal((await admin.request('GET', `/console/${mine.slug}/full-syncs`)).statusCode, 200);
    assert.equal((await staff.request('GET', `/console/${mine.slug}/webhooks`)).statusCode, 403);
    const manager = await personBrowser(ctx(), mine, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    assert.equal((await manager.request('GET', `/console/${mine.slug}/webhooks`)).statusCode, 200);
    for (const id of ['not-an-id', '00000000-0000-4000-8000-000000000000'])
      assert.equal(
        (await manager.request('GET', `/console/${mine.slug}/webhooks/${id}`)).statusCode,
        404,
        id,
      );
    // A hidden button's post is refused by the API too, and nothing is created.
    const added = await ctx().app.inject({
      method: 'POST',
      url: `/console/${mine.slug}/webhooks`,
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(admin.csrf)}&url=${encodeURIComponent('https://hooks.example.edu/x')}`,
    });
    assert.equal(added.statusCode, 403);
    const listed = await ctx().admin('GET', `/admin/v1/institutions/${mine.slug}/webhook-endpoints`);
    assert.equal(listed.json().items.length, 0);
    const operator = await operatorBrowser(ctx());
    assert.equal((await operator.request('GET', `/console/${theirs.slug}/secrets`)).statusCode, 200);
  });

  test('form posts need the CSRF token; with it, the change is made and audited once', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const post = (body: string) =>
      ctx().app.inject({
        method: 'POST',
        url: `/console/${tenant.slug}/secrets/roster/revoke`,
        headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body,
      });
    const forged = await post('confirmed=yes');
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /csrf_invalid/);
    const asked = await post(`_csrf=${encodeURIComponent(admin.csrf)}`);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Revoke the roster secret\?/);
    const done = await post(`_csrf=${encodeURIComponent(admin.csrf)}&confirmed=yes`);
    assert.equal(done.statusCode, 303, done.body);
    const status = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/roster-secret`);
    assert.equal(status.json().state, 'revoked');
    // The change is audited once, as the console action the admin took, in their session; asking
    // for confirmation changed nothing and is not in the audit.
    const audit = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audit`);
    const mine = audit
      .json()
      .items.filter((e: { actor_id: string | null }) => e.actor_id === admin.personId)
      .map((e: { action: string; target: string; status: number; session_id: string | null }) => ({
        action: e.action,
        target: e.target,
        status: e.status,
        session: e.session_id !== null,
      }));
    assert.deepEqual(mine, [
      {
        action: 'POST /console/:slug/secrets/roster/revoke',
        target: `/console/${tenant.slug}/secrets/roster/revoke`,
        status: 303,
        session: true,
      },
    ]);
  });
});
