// The console's Data pages in a real browser: an admin searches and filters the students,
// pages through them, downloads the CSV of a filter and visits every Data page from the
// navigation; a staff member opens a student's page from the listing; the operator merges two
// campuses through the confirmation, and sees the API's refusal next to its field. axe-core runs on every page and each is photographed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { seedConsoleData } from '../helpers/console-data.ts';
import { downloadText } from './chromium.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: data pages', (h) => {
  test('an admin searches, filters and pages the students, downloads the CSV and reads every Data page', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const seeded = await seedConsoleData(ctx, tenant, { numbered: 60 });
    const admin = await h().person(tenant, { roles: ['admin'], name: 'Dana Admin' });
    await h().withPage(
      admin,
      async (page) => {
        const rows = page.locator('#students tbody tr');
        await page.goto(`/console/${tenant.slug}/`);
        await page
          .getByRole('navigation', { name: 'Console' })
          .getByRole('link', { name: 'Students' })
          .click();
        await page.locator('h1', { hasText: 'Students' }).waitFor();
        assert.equal(await rows.count(), 50);
        await h().check(page, 'data-students');

        // Search: a prefix of a name, an email or an external id.
        await page.getByLabel('Name, email or external id').fill('ada');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/q=ada/);
        assert.deepEqual(await rows.locator('td:first-child').allTextContents(), [
          'Ada Lovelace',
          'Grace Adams',
        ]);
        await h().check(page, 'data-students-search');

        // Filters combine with the search; the departed filter finds the one departed student.
        await page.getByLabel('Program').selectOption('NURS');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/program=NURS/);
        assert.deepEqual(await rows.locator('td:first-child').allTextContents(), ['Grace Adams']);
        await page.getByRole('link', { name: 'Clear' }).click();
        await page.getByLabel('Departed').selectOption('departed');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/status=departed/);
        assert.deepEqual(await rows.locator('td:first-child').allTextContents(), ['Cam Canada']);
        await h().check(page, 'data-students-departed');

        // Paging: the second page holds the rest, and "First page" leads back.
        await page.getByRole('link', { name: 'Clear' }).click();
        await page.getByRole('link', { name: 'Next page' }).click();
        await page.waitForURL(/cursor=/);
        assert.equal(await rows.count(), seeded.emails.length - 50);
        assert.equal(await page.getByRole('link', { name: 'Next page' }).count(), 0);
        await h().check(page, 'data-students-page-2');

        // The export: every student of the filter, not only the page shown.
        await page.goto(`/console/${tenant.slug}/students?campus=North`);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Export CSV' }).click(),
        ]);
        const csv = await downloadText(download);
        const lines = csv.trimEnd().split('\r\n');
        assert.match(lines[0], /^id,email,/);
        assert.equal(lines.length, 61, 'the 60 students of North and the header');
        await page.goto(`/console/${tenant.slug}/students?q=formula`);
        const [formula] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Export CSV' }).click(),
        ]);
        const formulaCsv = await downloadText(formula);
        assert.match(formulaCsv, /"'=HYPERLINK/);
        assert.ok(!/,=/.test(formulaCsv), 'formula-like cells are neutralised');

        // A link edited by hand is a message on the page, not an error page.
        await page.goto(`/console/${tenant.slug}/students?cursor=edited`);
        await page
          .getByRole('alert')
          .filter({ hasText: 'This link to a later page is out of date' })
          .waitFor();
        await h().check(page, 'data-students-bad-cursor');

        // Every other Data page, from the navigation.
        const nav = page.getByRole('navigation', { name: 'Console' });
        for (const [label, expected] of [
          ['Programs', 'Bachelor of Science'],
          ['Campuses', 'Riverside'],
          ['Terms', 'Semester 2'],
          ['Units', 'Foundations of Nursing'],
          ['Enrolments', 'NURS101'],
          ['Cohorts', 'Cohort A'],
        ]) {
          await nav.getByRole('link', { name: label }).click();
          await page.locator('h1', { hasText: label }).waitFor();
          await page.getByText(expected).first().waitFor();
          assert.equal(await nav.getByRole('link', { name: label }).getAttribute('aria-current'), 'page');
          await h().check(page, `data-${label.toLowerCase()}`);
        }
        // Merging is the operator's: an admin is not offered it.
        await page.goto(`/console/${tenant.slug}/campuses`);
        assert.equal(await page.getByRole('heading', { name: 'Merge two campuses' }).count(), 0);
        // From a unit to its enrolments, filtered.
        await page.goto(`/console/${tenant.slug}/units`);
        await page.getByRole('link', { name: 'Enrolments in BIO101' }).click();
        await page.waitForURL(/unit_code=BIO101/);
        assert.equal(await page.locator('#enrolments tbody tr').count(), 2);
      },
      'data-enrolments-filtered',
    );
  });

  test('a staff member opens a student from the listing: who they are, their requests, their enrolments', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    await seedConsoleData(ctx, tenant);
    const domain = `${tenant.slug}.example.edu`;
    for (const [summary, priority, category] of [
      ['Cannot pay the library fine', 'normal', 'financial'],
      ['Struggling to keep up with BIO101', 'high', 'academic'],
    ]) {
      const created = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
        student_email: `ada@${domain}`,
        summary,
        priority,
        category,
      });
      assert.equal(created.statusCode, 201, created.body);
    }
    const staff = await h().person(tenant, { roles: ['staff'], name: 'Sam Staff' });
    await h().withPage(staff, async (page) => {
      await page.goto(`/console/${tenant.slug}/students?q=ada`);
      await page.getByRole('link', { name: `ada@${domain}` }).click();
      await page.locator('h1', { hasText: 'Ada Lovelace' }).waitFor();
      const requests = page.locator('#requests tbody tr');
      assert.deepEqual(await requests.locator('td:first-child').allTextContents(), [
        'Struggling to keep up with BIO101',
        'Cannot pay the library fine',
      ]);
      assert.equal(await page.locator('#student-enrolments tbody tr').count(), 2);
      await page.getByText('cohort: the cohort starts on a date not set yet').waitFor();
      await h().check(page, 'data-student');

      // Each request opens the inbox's page for it.
      await page.getByRole('link', { name: 'Struggling to keep up with BIO101' }).click();
      await page.locator('h1', { hasText: 'Struggling to keep up with BIO101' }).waitFor();
      await page.goBack();
      await page.getByRole('link', { name: 'All students' }).click();
      await page.locator('h1', { hasText: 'Students' }).waitFor();
    });
  });

  test('the operator merges two campuses after confirming; a refusal sits next to its field', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    await seedConsoleData(ctx, tenant);
    await h().withPage(
      await h().operator(),
      async (page) => {
        await page.goto(`/console/${tenant.slug}/campuses`);
        await page.getByRole('heading', { name: 'Merge two campuses' }).waitFor();
        await h().check(page, 'data-campuses-operator');

        // A campus into itself: the API's refusal, next to the field it names.
        await page.getByLabel('The campus that goes').selectOption({ label: 'City' });
        await page.getByLabel('The campus that stays').selectOption({ label: 'City' });
        await page.getByRole('button', { name: 'Merge…' }).click();
        await page.locator('h1', { hasText: 'Merge City into City?' }).waitFor();
        await page.getByRole('button', { name: 'Merge into City' }).click();
        await page.locator('#merge-into-error').waitFor();
        assert.match(
          (await page.locator('#merge-into-error').textContent()) ?? '',
          /a campus cannot be merged into itself/,
        );
        await h().check(page, 'data-campus-merge-error');

        await page.getByLabel('The campus that goes').selectOption({ label: 'Northern' });
        await page.getByLabel('The campus that stays').selectOption({ label: 'North' });
        await page.getByRole('button', { name: 'Merge…' }).click();
        await page.locator('h1', { hasText: 'Merge Northern into North?' }).waitFor();
        await h().check(page, 'data-campus-merge-confirm');
        await page.getByRole('button', { name: 'Merge into North' }).click();
        await page.getByText('The campuses were merged').waitFor();
        const row = page.locator('#campuses tbody tr', { hasText: 'North' }).first();
        assert.match((await row.textContent()) ?? '', /Northern/);
        assert.equal(await page.locator('#campuses tbody tr').count(), 3);
      },
      'data-campuses-merged',
    );
  });
});
