// Archiving in the console (docs/archiving.md): the operator's institutions page archives an
// institution after a confirmation page naming what will stop (a form post with the CSRF token;
// none is refused), lists it only under Archived, and restores it; its admins read under a
// banner and are refused changes; a cohort's page archives it (confirmed) and restores it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';
import { type Browser, operatorBrowser, personBrowser, postForm } from '../helpers/people.ts';

const page = (ctx: TestContext, who: Browser, url: string) =>
  ctx.app.inject({ method: 'GET', url, headers: { cookie: who.cookie } });

const archivedAt = async (ctx: TestContext, table: 'institutions' | 'cohorts', id: string) =>
  (await ctx.db.query<{ archived_at: Date | null }>(`SELECT archived_at FROM ${table} WHERE id = $1`, [id]))
    .rows[0].archived_at;

describeEachDatabase('console: archiving', (ctx) => {
  test('the operator archives an institution after a confirmation, finds it under Archived, and restores it', async () => {
    const tenant = await seedTenant(ctx());
    const operator = await operatorBrowser(ctx());
    // Invited before the archive: an archived institution takes no new people.
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const archiveUrl = `/console/${tenant.slug}/archive`;

    const list = await page(ctx(), operator, '/console/?archived=any');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, new RegExp(`action="${archiveUrl}"`));

    const forged = await postForm(ctx(), operator, archiveUrl, [['confirmed', 'yes']], false);
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /csrf_invalid/);
    assert.equal(await archivedAt(ctx(), 'institutions', tenant.institutionId), null);

    const asked = await postForm(ctx(), operator, archiveUrl);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Nothing is deleted/);
    assert.match(asked.body, /Every push is refused/);
    assert.match(asked.body, /calendar feeds are not fetched/);
    assert.match(asked.body, /students see a page saying the service is not available/);
    assert.equal(
      await archivedAt(ctx(), 'institutions', tenant.institutionId),
      null,
      'asking changes nothing',
    );

    const done = await postForm(ctx(), operator, archiveUrl, [['confirmed', 'yes']]);
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/console/?archived=true&done=institution_archived');
    assert.ok(await archivedAt(ctx(), 'institutions', tenant.institutionId));

    const active = await page(ctx(), operator, '/console/');
    assert.doesNotMatch(active.body, new RegExp(`/console/${tenant.slug}/`), 'hidden from the default list');
    const archivedList = await page(ctx(), operator, '/console/?archived=true&done=institution_archived');
    assert.match(archivedList.body, /The institution was archived/);
    assert.match(archivedList.body, new RegExp(`action="/console/${tenant.slug}/restore"`));
    assert.equal((await page(ctx(), operator, '/console/?archived=perhaps')).statusCode, 400);

    // Its admins read under the banner; a change is refused with the code.
    const cohorts = await page(ctx(), admin, `/console/${tenant.slug}/cohorts`);
    assert.equal(cohorts.statusCode, 200);
    assert.match(cohorts.body, /This institution is archived/);
    const refused = await postForm(ctx(), admin, `/console/${tenant.slug}/cohorts`, [['name', 'Another']]);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /was archived on [^<_]* by the operator/);

    const restored = await postForm(ctx(), operator, `/console/${tenant.slug}/restore`);
    assert.equal(restored.statusCode, 303);
    assert.equal(await archivedAt(ctx(), 'institutions', tenant.institutionId), null);
    assert.doesNotMatch(
      (await page(ctx(), admin, `/console/${tenant.slug}/cohorts`)).body,
      /This institution is archived/,
    );

    const audit = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audit`);
    const actions = audit.json().items.map((e: { action: string }) => e.action);
    assert.deepEqual(
      actions.filter((a: string) => /archive|restore/.test(a)),
      ['POST /console/:slug/restore', 'POST /console/:slug/archive'],
      'the change and the restore are audited; the question is not',
    );
  });

  test("an admin archives a cohort from its page (confirmed) and restores it; staff can't", async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const cohortPage = `/console/${tenant.slug}/cohorts/${tenant.cohortId}`;
    assert.match((await page(ctx(), admin, cohortPage)).body, new RegExp(`action="${cohortPage}/archive"`));

    const asked = await postForm(ctx(), admin, `${cohortPage}/archive`);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /is refused\./);
    assert.match(asked.body, /Its students stay/);
    assert.equal(await archivedAt(ctx(), 'cohorts', tenant.cohortId), null);

    const done = await postForm(ctx(), admin, `${cohortPage}/archive`, [['confirmed', 'yes']]);
    assert.equal(done.statusCode, 303);
    assert.ok(await archivedAt(ctx(), 'cohorts', tenant.cohortId));
    const shown = await page(ctx(), admin, cohortPage);
    assert.match(shown.body, /Archived on/);
    assert.match(shown.body, new RegExp(`action="${cohortPage}/restore"`));
    const list = await page(ctx(), admin, `/console/${tenant.slug}/cohorts`);
    assert.doesNotMatch(list.body, new RegExp(`href="${cohortPage}"`), 'hidden from the cohorts list');
    const all = await page(ctx(), admin, `/console/${tenant.slug}/cohorts?archived=any`);
    assert.match(all.body, new RegExp(`href="${cohortPage}"`));

    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    assert.equal((await postForm(ctx(), staff, `${cohortPage}/restore`)).statusCode, 403);
    const restored = await postForm(ctx(), admin, `${cohortPage}/restore`);
    assert.equal(restored.statusCode, 303);
    assert.equal(await archivedAt(ctx(), 'cohorts', tenant.cohortId), null);
  });
});
