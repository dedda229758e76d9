// An integration manager configures the institution's OneRoster source in a real browser against
// a real provider over HTTP (the guard's refusal next to the base URL), syncs now (the pull
// queued for the worker), sees it in the pull history and opens its run; a failing provider
// shows on the health page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pullDepsOf } from '../../src/domain/oneroster/pull/pull.ts';
import { createOneRosterPullWorker } from '../../src/workers/oneroster-pull.ts';
import { seedTenant } from '../helpers/app.ts';
import { generateRoster, providerPool } from '../helpers/oneroster-provider.ts';
import { browserSuite } from './harness.ts';

const startProvider = providerPool();

browserSuite('console: OneRoster source', (h) => {
  test('configures the source, syncs now and sees the pull history', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const provider = await startProvider({ data: generateRoster({ students: 8 }) });
    const manager = await h().person(tenant, { roles: ['admin'], permissions: ['manage_integrations'] });
    await h().withPage(
      manager,
      async (page) => {
        await page.goto(`/console/${tenant.slug}/`);
        await page.getByRole('link', { name: 'OneRoster source', exact: true }).first().click();
        await page.locator('h1', { hasText: 'OneRoster source' }).waitFor();
        await h().check(page, 'oneroster-source-empty');

        await page.getByLabel('Base URL').fill('https://10.0.0.8/ims/oneroster/rostering/v1p2');
        await page.getByLabel('Token URL').fill(provider.tokenUrl);
        await page.getByLabel('Client id').fill(provider.clientId);
        await page.getByLabel('Client secret').fill(provider.clientSecret);
        await page.getByLabel('Cohort for its students').selectOption({ label: 'Cohort A' });
        await page.getByRole('button', { name: 'Save the OneRoster source' }).click();
        await page.locator('#or-base_url-error').waitFor();
        assert.match(
          (await page.locator('#or-base_url-error').textContent()) ?? '',
          /^[^_]* address, which the service does not call\s*$/,
        );
        await h().check(page, 'oneroster-source-refused');

        await page.getByLabel('Base URL').fill(provider.baseUrl);
        await page.getByLabel('Client secret').fill(provider.clientSecret);
        await page.getByRole('button', { name: 'Save the OneRoster source' }).click();
        await page.getByText('The OneRoster source was saved').waitFor();
        // Sync now queues the pull: the page shows it queued; the worker (run here) then pulls it.
        const worker = createOneRosterPullWorker({
          deps: pullDepsOf(ctx.deps),
          institutionIds: [tenant.institutionId],
        });
        await page.getByRole('button', { name: 'Sync now (full)' }).click();
        await page.getByText('The pull was queued').waitFor();
        await h().check(page, 'oneroster-pull-queued');
        assert.deepEqual(await worker.runOnce(), { claimed: 1, ok: 1, failed: 0 });

        await page.goto(`/console/${tenant.slug}/oneroster-source`);
        await page.locator('#pulls-title').waitFor();
        assert.match(
          (await page.locator('section', { hasText: 'Pull history' }).textContent()) ?? '',
          /full/,
        );
        await h().check(page, 'oneroster-source-history');
        await page.locator('section', { hasText: 'Pull history' }).getByRole('link').first().click();
        await page.locator('h1', { hasText: 'OneRoster pull of' }).waitFor();
        await h().check(page, 'oneroster-pull-run');

        await page.goto(`/console/${tenant.slug}/oneroster-source`);
        provider.down('all', 503);
        await page.getByRole('button', { name: 'Sync changes only (delta)' }).click();
        await page.getByText('The pull was queued').waitFor();
        assert.deepEqual(await worker.runOnce(), { claimed: 1, ok: 0, failed: 1 });
        await page.goto(`/console/${tenant.slug}/`);
        await page.getByText('The OneRoster source is failing since').waitFor();
        await h().check(page, 'oneroster-health-failing');
        // The source's own page names the failure's stable code beside its reason.
        await page.goto(`/console/${tenant.slug}/oneroster-source`);
        const health = page.locator('dd', { hasText: 'failing' });
        await health.waitFor();
        assert.match((await health.textContent()) ?? '', /HTTP 503.*\(provider_error\)/s);
      },
      'oneroster-source-failing',
    );
  });
});
