// Privacy in a real browser: an admin opens a student's page, reads their export, opens a request
// (and sees themselves under "Seen by"), reads the erasure's confirmation, is told to tick the box,
// erases the student, then sets a retention period and meets its inline error. axe-core runs on
// every page and each is photographed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { seedStudentEverywhere } from '../privacy/seed.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: privacy', (h) => {
  test('export, seen by, erasure after confirmation, and retention settings', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const s = await seedStudentEverywhere(ctx, tenant);
    const admin = await h().person(tenant, { roles: ['admin'], name: 'Noor Admin' });
    await h().withPage(
      admin,
      async (page) => {
        await page.goto(`/console/${tenant.slug}/students/${s.id}`);
        await page.getByRole('link', { name: 'Export everything held' }).click();
        await page.locator('h1', { hasText: 'Everything held about' }).waitFor();
        await page
          .getByText(/cannot cope/)
          .first()
          .waitFor();
        await h().check(page, 'privacy-export');

        await page.goto(`/console/${tenant.slug}/inbox/${s.requestIds[0]}`);
        assert.match((await page.locator('#seen-by').textContent()) ?? '', /Noor Admin/);
        await h().check(page, 'privacy-seen-by');

        await page.goto(`/console/${tenant.slug}/students/${s.id}`);
        await page.getByRole('link', { name: 'Erase this student…' }).click();
        await page.getByText('This cannot be undone.').waitFor();
        await h().check(page, 'privacy-erase-confirm');
        await page.getByRole('button', { name: 'Erase the student' }).click();
        await page
          .locator('#confirmed-error', { hasText: 'Tick the box to confirm that this cannot be undone' })
          .waitFor();
        await page.getByRole('checkbox', { name: /erases the student for good/ }).check();
        await page.getByRole('button', { name: 'Erase the student' }).click();
        await page.getByText('The student was erased').waitFor();

        await page.getByRole('navigation').getByRole('link', { name: 'Privacy', exact: true }).click();
        await page.locator('h1', { hasText: 'Privacy' }).waitFor();
        assert.match((await page.locator('#erasures-title + table').textContent()) ?? '', /Noor Admin/);
        await page.getByLabel(/Row errors and warnings of push history/).fill('3');
        await page.getByRole('button', { name: 'Save the periods' }).click();
        await page
          .locator('.field-error', {
            hasText: 'Enter a whole number of days from 7 to 730, or leave it empty for the default',
          })
          .waitFor();
        await h().check(page, 'privacy-retention-error');
        await page.getByLabel(/Row errors and warnings of push history/).fill('30');
        await page.getByRole('button', { name: 'Save the periods' }).click();
        await page.getByText('The retention periods were saved').waitFor();
        await h().check(page, 'privacy-retention');

        await page.goto(`/console/${tenant.slug}/audit/views`);
        await page.locator('h1', { hasText: 'Who looked' }).waitFor();
      },
      'privacy-who-looked',
    );
  });
});
