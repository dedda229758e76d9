// Archiving in a real browser (docs/archiving.md): the operator archives an institution from the
// institutions page after a confirmation naming what will stop, finds it under Archived, its
// admin reads its console under the banner, and the operator restores it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSession } from '../../src/domain/people/sessions.ts';
import { seedTenant } from '../helpers/app.ts';
import { pushRoster } from '../helpers/roster.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: archiving an institution', (h) => {
  test('archive after a confirmation, the banner its admin sees, restore', async () => {
    const tenant = await seedTenant(h().ctx);
    const renamed = await h().ctx.admin('PATCH', `/admin/v1/institutions/${tenant.slug}`, {
      name: `Mistaken College ${tenant.slug.slice(-6)}`,
    });
    const name: string = renamed.json().name;
    // Invited (and pushed) before the archive: an archived institution takes no new people.
    const adminSession = await h().person(tenant, { roles: ['admin'] });
    const pushed = await pushRoster(h().ctx, tenant, {
      students: [{ email: 'sam@example.edu', student_id_ext: 'S-1' }],
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
    const listed = await h().ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students`);
    const studentSession = await startSession(h().ctx.deps, {
      kind: 'student',
      studentId: listed.json().items[0].id,
      institutionId: tenant.institutionId,
    });
    await h().withPage(
      await h().operator(),
      async (page) => {
        await page.goto('/console/');
        await page.getByRole('button', { name: `Archive ${name}` }).click();
        await page.waitForURL(`**/console/${tenant.slug}/archive`);
        assert.equal(await page.locator('h1').textContent(), `Archive ${name}?`);
        const notice = (await page.locator('.notice').textContent()) ?? '';
        assert.match(notice, /Nothing is deleted/);
        assert.match(notice, /calendar feeds are not fetched/);
        await h().check(page, 'archiving-confirm');

        await page.getByRole('button', { name: `Archive ${name}` }).click();
        await page.waitForURL('**/console/?archived=true&done=institution_archived');
        assert.match((await page.locator('.success').textContent()) ?? '', /institution was archived/);
        const row = page.getByRole('row').filter({ hasText: name });
        assert.match((await row.textContent()) ?? '', /archived/);
        await h().check(page, 'archiving-archived-list');
        await page.getByRole('link', { name: 'Active', exact: true }).click();
        await page.waitForURL('**/console/');
        assert.equal(
          await page.getByRole('row').filter({ hasText: name }).count(),
          0,
          'hidden from the active list',
        );

        const admin = await h().open(adminSession);
        try {
          await admin.page.goto(`/console/${tenant.slug}/cohorts`);
          assert.match(
            (await admin.page.locator('.archived-banner').textContent()) ?? '',
            /This institution is archived/,
          );
          await h().check(admin.page, 'archiving-admin-banner');
          // No form that could only be refused: the cohort and time-zone forms are gone, said so.
          assert.equal(await admin.page.getByRole('button', { name: 'Create the cohort' }).count(), 0);
          assert.equal(await admin.page.locator('main form[method="post"]').count(), 0);
          assert.ok((await admin.page.getByText('Not while the institution is archived.').count()) >= 2);
          await h().check(admin.page, 'archiving-admin-no-forms');
          for (const path of [
            'secrets',
            'webhooks',
            'people',
            'crisis-contacts',
            'calendar-feeds',
            'notifications',
          ]) {
            await admin.page.goto(`/console/${tenant.slug}/${path}`);
            assert.equal(await admin.page.locator('main form[method="post"]').count(), 0, path);
          }
        } finally {
          await admin.context.close();
        }

        // Its students see a plain page: the service is not available.
        const student = await h().open(studentSession);
        try {
          await student.page.setViewportSize({ width: 390, height: 844 });
          const answer = await student.page.goto('/app/');
          assert.equal(answer?.status(), 409);
          assert.equal(await student.page.locator('h1').textContent(), 'Service not available');
          assert.match(
            (await student.page.locator('main').textContent()) ?? '',
            /This service is not available/,
          );
          await h().check(student.page, 'archiving-student-unavailable');
        } finally {
          await student.context.close();
        }

        await page.goto('/console/?archived=true');
        await page.getByRole('button', { name: `Restore ${name}` }).click();
        await page.waitForURL('**/console/?done=institution_restored');
        assert.match((await page.locator('.success').textContent()) ?? '', /institution was restored/);
        assert.equal(
          await page.getByRole('row').filter({ hasText: name }).count(),
          1,
          'back in the active list',
        );
      },
      'archiving-restored',
    );
  });
});
