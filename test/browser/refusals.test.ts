// Role and tenant refusals in a real browser: an admin of one institution editing the URL to
// reach another gets the not-found page; a signed-out visitor goes to sign-in; a student goes
// to the student pages; a forged form post without its CSRF token changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { studentBrowser } from '../helpers/people.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: refusals', (h) => {
  test('another tenant is not found, signed-out and student visitors are sent elsewhere', async () => {
    const { ctx, base } = h();
    const mine = await seedTenant(ctx);
    const theirs = await seedTenant(ctx);
    const admin = await h().person(mine, { roles: ['admin'] });
    await h().withPage(admin, async (page) => {
      for (const path of ['/', '/secrets', '/people', '/runs', '/inbox']) {
        const response = await page.goto(`/console/${theirs.slug}${path}`);
        assert.equal(response?.status(), 404, path);
        assert.equal(await page.locator('h1').textContent(), 'Not found');
        assert.ok(
          !(await page.content()).includes(`Institution ${theirs.slug}`),
          'nothing of theirs is shown',
        );
      }
      await h().check(page, 'refused-other-tenant');
      const unknown = await page.goto('/console/no-such-place/people');
      assert.equal(unknown?.status(), 404);

      // An admin without Manage integrations sees no help-sync secret controls.
      await page.goto(`/console/${mine.slug}/secrets`);
      assert.equal(await page.getByRole('button', { name: /help-sync/ }).count(), 0);
      await h().check(page, 'admin-without-integrations-secrets');

      // A cross-site form post: no CSRF token, refused, nothing revoked.
      const forged = await fetch(`${base}/console/${mine.slug}/secrets/roster/revoke`, {
        method: 'POST',
        headers: {
          cookie: `ssp_session=${admin.token}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'confirmed=yes',
        redirect: 'manual',
      });
      assert.equal(forged.status, 403);
      const status = await ctx.admin('GET', `/admin/v1/institutions/${mine.slug}/roster-secret`);
      assert.equal(status.json().state, 'active');
    });

    {
      const first = await fetch(`${base}/console/${mine.slug}/runs`, { redirect: 'manual' });
      assert.equal(first.status, 303);
      assert.equal(
        first.headers.get('location'),
        `/auth/${mine.slug}/sign-in?return_to=${encodeURIComponent(`/console/${mine.slug}/runs`)}`,
      );
    }

    const student = await studentBrowser(ctx, mine);
    const asStudent = await fetch(`${base}/console/`, {
      headers: { cookie: student.cookie },
      redirect: 'manual',
    });
    assert.equal(asStudent.status, 303);
    assert.equal(asStudent.headers.get('location'), '/app/');
  });
});
