// A staff member's main path in a real browser: a crisis request first in the inbox, worked to
// resolved (assigned to a colleague from the staff select, then to themselves, noted, status
// changed) with each step in its timeline; and what staff may
// not reach: no secrets in the navigation, the secrets page refused by the API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { seedStudents } from '../helpers/helpdesk.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: staff', (h) => {
  test('works a crisis request from the inbox to resolved', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const [student] = await seedStudents(ctx, tenant, 2);
    const create = (priority: string, summary: string) =>
      ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
        student_id: student,
        priority,
        summary,
      });
    await create('normal', 'Question about enrolment');
    const crisis = await create('crisis', 'Student in distress');
    assert.equal(crisis.statusCode, 201, crisis.body);
    await create('low', 'Library card');

    const staff = await h().person(tenant, { roles: ['staff'], name: 'Sam Staff' });
    await h().person(tenant, { roles: ['admin'], name: 'Robin Colleague' });
    await h().withPage(
      staff,
      async (page) => {
        await page.goto('/console/');
        await page.waitForURL(`**/console/${tenant.slug}/inbox`);
        assert.equal(
          await page.getByRole('link', { name: 'Secrets' }).count(),
          0,
          'staff see no secrets link',
        );
        const crisisSection = page.locator('section', { hasText: 'Open crisis requests' });
        assert.equal(await crisisSection.getByRole('link', { name: 'Student in distress' }).count(), 1);
        await h().check(page, 'staff-inbox');

        await crisisSection.getByRole('link', { name: 'Student in distress' }).click();
        await page.locator('h1', { hasText: 'Student in distress' }).waitFor();
        // Who the student is, and the crisis contacts, on the request's own page.
        const student =
          (await page.locator('section', { hasText: 'Other open requests' }).textContent()) ?? '';
        assert.match(student, /Cohort/);
        assert.match(student, /Six weeks/);
        await h().check(page, 'staff-request');

        await page.getByLabel('Assign to').selectOption({ label: 'Robin Colleague' });
        await page.getByRole('button', { name: 'Assign', exact: true }).click();
        await page.waitForURL('**?done=assignment_changed');
        assert.match((await page.locator('dl').first().textContent()) ?? '', /Assigned to\s*Robin Colleague/);
        await page.getByRole('button', { name: 'Assign to me' }).click();
        await page.waitForURL('**?done=assignment_changed');
        assert.match((await page.locator('dl').first().textContent()) ?? '', /Assigned to\s*Sam Staff/);
        await h().check(page, 'staff-request-assigned');
        await page.getByLabel('Note for staff').fill('Called the student; safe for now.');
        await page.getByRole('button', { name: 'Add internal note' }).click();
        await page.waitForURL('**?done=note_added');
        // An empty note: the API's error next to the field.
        await page.getByRole('button', { name: 'Add internal note' }).click();
        await page.locator('#note-error').waitFor();
        await h().check(page, 'staff-request-error');

        await page.getByLabel('New status').selectOption('resolved');
        await page.getByRole('button', { name: 'Change status' }).click();
        await page.waitForURL('**?done=status_changed');
        assert.equal(await page.locator('#current-status').textContent(), 'Resolved');
        const timeline = (await page.locator('.timeline').textContent()) ?? '';
        assert.match(timeline, /Called the student/);
        assert.match(timeline, /Sam Staff/);
        assert.match(timeline, /Status changed from New to Resolved by Sam Staff/);
        await h().check(page, 'staff-request-resolved');

        // Resolved, it leaves the crisis strip; the filters find it, "assigned to me" included.
        await page.goto(`/console/${tenant.slug}/inbox?status=resolved`);
        assert.equal(await page.getByRole('link', { name: 'Student in distress' }).count(), 1);
        await page.goto(`/console/${tenant.slug}/inbox?assigned=me`);
        assert.equal(await page.getByRole('link', { name: 'Student in distress' }).count(), 1);
        assert.equal(await page.getByRole('link', { name: 'Library card' }).count(), 0);

        // Hidden is also refused: the secrets page answers 403 from the API.
        const secrets = await page.goto(`/console/${tenant.slug}/secrets`);
        assert.equal(secrets?.status(), 403);
        assert.match((await page.locator('.error').textContent()) ?? '', /admin role/);
      },
      'staff-refused',
    );
  });
});
