// Pages speak in words, in a real browser: an error page says what happened and keeps the code
// and the request id in a "Details" disclosure; a run's row errors are columns in words.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { seedTenant } from '../helpers/app.ts';
import { browserSuite } from './harness.ts';

/** The page's text outside its <details> elements. */
const textOutsideDetails = (page: Page) =>
  page.evaluate(
    `(() => { const copy = document.querySelector('main').cloneNode(true);
      for (const d of copy.querySelectorAll('details')) d.remove();
      return copy.textContent; })()`,
  ) as Promise<string>;

browserSuite('pages in words', (h) => {
  test('error pages: words first, the code and the request id under Details', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const student = await ctx.request({
      method: 'POST',
      url: '/api/sis/sync',
      token: tenant.rosterSecret,
      body: { cohort_id: tenant.cohortId, students: [{ email: 'sam@example.edu', student_id_ext: 'S1' }] },
    });
    assert.equal(student.statusCode, 200, student.body);
    const list = await ctx.admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?email=sam@example.edu`,
    );
    const session = await ctx.services.sessions.create({
      kind: 'student',
      studentId: list.json().items[0].id,
      institutionId: tenant.institutionId,
    });
    const staff = await h().person(tenant, { roles: ['staff'] });
    for (const [who, url, code, shot] of [
      [session, `/app/requests/${randomUUID()}`, 'help_request_not_found', 'words-student-not-found'],
      [staff, `/console/${tenant.slug}/secrets`, 'forbidden', 'words-console-not-allowed'],
      [staff, `/console/${tenant.slug}/nothing-here`, 'not_found', 'words-console-not-found'],
    ] as const) {
      const { page, context } = await h().open(who);
      try {
        await page.goto(url);
        assert.doesNotMatch(await textOutsideDetails(page), new RegExp(`${code}|Code:`), url);
        const details = page.locator('details', { hasText: 'Details' });
        await details.locator('summary').click();
        assert.match((await details.textContent()) ?? '', new RegExp(`${code}[\\s\\S]*[0-9a-z-]{6,}`));
        await h().check(page, shot);
      } finally {
        await context.close();
      }
    }
  });
});
