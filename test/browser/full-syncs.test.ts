// An admin's decision on held departures in a real browser: the health page's "Held departures"
// card leads to the full syncs, a held sync lists the students it would depart, and confirming
// or discarding asks first; the decision is the API's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { browserSuite } from './harness.ts';

/** A roster of ten students, then a full sync naming only some of them: held over the threshold. */
async function heldFullSync(
  ctx: TestContext,
  base: string,
  tenant: SeededTenant,
  syncId: string,
  keep: number,
) {
  const issued = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/roster-secret`);
  assert.equal(issued.statusCode < 300, true, issued.body);
  const secret = (issued.json() as { secret: string }).secret;
  const students = Array.from({ length: 10 }, (_, i) => ({
    email: `s${i + 1}@student.example.edu`,
    student_id_ext: `S${i + 1}`,
    first_name: `Student ${i + 1}`,
  }));
  const push = (body: Record<string, unknown>) =>
    fetch(`${base}/api/sis/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cohort_id: tenant.cohortId, ...body }),
    });
  assert.equal((await push({ students })).status, 200);
  const full = await push({ students: students.slice(0, keep), sync_id: syncId, final_page: true });
  assert.equal(full.status, 200);
  const answer = (await full.json()) as { full_sync?: { status: string } };
  assert.equal(answer.full_sync?.status, 'held');
}

browserSuite('console: full syncs', (h) => {
  test('an admin sees held departures from the health page and confirms them', async () => {
    const { ctx, base } = h();
    const tenant = await seedTenant(ctx);
    await heldFullSync(ctx, base, tenant, 'nightly-1', 6);
    const admin = await h().person(tenant, { roles: ['admin'], name: 'Dana Admin' });
    await h().withPage(admin, async (page) => {
      await page.goto(`/console/${tenant.slug}/`);
      // The last pushes table fits its card at 1280px: no column is clipped.
      const card = page.locator('section', { hasText: 'Last pushes' });
      const fits = await card.evaluate((el) => el.scrollWidth <= el.clientWidth);
      assert.ok(fits, 'the Last pushes table overflows its card');
      await h().check(page, 'admin-health-held');
      await page
        .locator('section', { hasText: 'Held departures' })
        .getByRole('link', { name: /1 full sync would depart students/ })
        .click();
      await page.locator('h1', { hasText: 'Full syncs' }).waitFor();
      await h().check(page, 'admin-full-syncs');

      await page.getByRole('link', { name: 'nightly-1' }).first().click();
      await page.locator('h1', { hasText: 'Full sync nightly-1' }).waitFor();
      const students = page.locator('section', { hasText: 'Students it would depart' });
      assert.equal(await students.locator('tbody tr').count(), 4);
      assert.equal(await students.getByText('s10@student.example.edu').count(), 1);
      await h().check(page, 'admin-full-sync');

      await page.getByRole('button', { name: 'Confirm the departures…' }).click();
      await page.locator('h1', { hasText: 'Depart these students?' }).waitFor();
      await h().check(page, 'admin-full-sync-confirm');
      await page.getByRole('button', { name: 'Confirm the departures' }).click();
      await page.getByText('The departures were applied.').waitFor();
      const { rows } = await ctx.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM students WHERE institution_id = $1 AND departed_at IS NOT NULL',
        [tenant.institutionId],
      );
      assert.equal(rows[0].n, 4);
      assert.equal(
        await page.locator('section', { hasText: 'Held departures' }).getByRole('table').count(),
        0,
      );
    });
  });

  test('discarding departs nobody', async () => {
    const { ctx, base } = h();
    const tenant = await seedTenant(ctx);
    await heldFullSync(ctx, base, tenant, 'nightly-2', 5);
    const admin = await h().person(tenant, { roles: ['admin'] });
    await h().withPage(admin, async (page) => {
      await page.goto(`/console/${tenant.slug}/full-syncs`);
      await page.getByRole('link', { name: 'nightly-2' }).first().click();
      await page.getByRole('button', { name: 'Discard the departures…' }).click();
      await page.locator('h1', { hasText: 'Discard these departures?' }).waitFor();
      await page.getByRole('button', { name: 'Discard the departures' }).click();
      await page.getByText('The departures were discarded').waitFor();
      await h().check(page, 'admin-full-syncs-decided');
      const { rows } = await ctx.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM students WHERE institution_id = $1 AND departed_at IS NOT NULL',
        [tenant.institutionId],
      );
      assert.equal(rows[0].n, 0);
    });
  });
});
