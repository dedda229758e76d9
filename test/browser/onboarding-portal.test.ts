// An integration's first steps and the webhook portal's deeper pages in a real browser: a
// cohort's page (its id and ready commands, each with a copy button), the health page's
// integration checklist (each step saying when it is done), the people page's redirect URI to
// register at the identity provider, a delivery attempt's page (the request's headers and body,
// the response) and the event catalogue. Each page passes axe and is kept as a screenshot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendTestEvent } from '../../src/domain/webhooks/deliveries.ts';
import { seedTenant } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, workerFor } from '../helpers/webhooks.ts';
import { browserSuite } from './harness.ts';

const receivers = receiverPool();

browserSuite('console: onboarding and the webhook portal', (h) => {
  test('the cohort id and commands to copy, the checklist, the redirect URI to register', async () => {
    const { ctx, base } = h();
    const tenant = await seedTenant(ctx);
    const admin = await h().person(tenant, { roles: ['admin'], permissions: ['manage_integrations'] });
    await h().withPage(
      admin,
      async (page, context) => {
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
        await page.goto(`/console/${tenant.slug}/cohorts/${tenant.cohortId}`);
        assert.equal(await page.locator('#cohort-id').inputValue(), tenant.cohortId);
        assert.match(
          await page.locator('#ssp-command').inputValue(),
          new RegExp(`ssp push roster --cohort ${tenant.cohortId} roster.csv --dry-run`),
        );
        assert.match(
          await page.locator('#curl-command').inputValue(),
          new RegExp(`^curl .*${base}/api/sis/sync`),
        );
        const copyId = page.getByRole('button', { name: 'Copy the id' });
        await copyId.click();
        await page.getByRole('button', { name: 'Copied' }).first().waitFor();
        assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), tenant.cohortId);
        for (const name of ['ssp-command', 'curl-command']) {
          assert.equal(await page.locator(`[data-copy="${name}"]`).isVisible(), true, name);
        }
        await h().check(page, 'onboarding-cohort');

        await page.goto(`/console/${tenant.slug}/`);
        const checklist = page.locator('section', { hasText: 'Setting up the integration' });
        await checklist.waitFor();
        assert.equal(await checklist.locator('li.todo').count(), 5);
        assert.match(
          (await checklist.textContent()) ?? '',
          /Done when the latest real \(not dry-run\) roster push, or OneRoster pull, had no row errors/,
        );
        await h().check(page, 'onboarding-health-checklist');

        await page.goto(`/console/${tenant.slug}/people`);
        const redirect = page.getByLabel('Redirect URI to register at the provider');
        assert.equal(await redirect.inputValue(), `${base}/auth/callback`);
        await page.getByRole('button', { name: 'Copy the redirect URI' }).click();
        await page.getByRole('button', { name: 'Copied' }).waitFor();
        assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), `${base}/auth/callback`);
      },
      'onboarding-people-redirect-uri',
    );
  });

  test("an attempt's request and response, and the event catalogue", async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const receiver = await receivers({
      status: 202,
      headers: { 'x-receiver': 'test' },
      body: JSON.stringify({ accepted: true, note: 'queued for processing' }),
    });
    const endpoint = await addEndpoint(ctx, tenant, { url: receiver.url, description: 'Help desk bridge' });
    await sendTestEvent(ctx.deps, tenant.institutionId, endpoint.id);
    await workerFor(ctx, tenant, ctx.deps.clock).drain();
    assert.equal(receiver.received.length, 1);

    const manager = await h().person(tenant, { roles: ['admin'], permissions: ['manage_integrations'] });
    await h().withPage(
      manager,
      async (page) => {
        await page.goto(`/console/${tenant.slug}/webhooks/${endpoint.id}`);
        await page.locator('ul.attempts a').first().click();
        await page.locator('h1', { hasText: 'Attempt of' }).waitFor();
        const request = page.locator('section', { hasText: 'Request' }).first();
        const requestText = (await request.textContent()) ?? '';
        assert.match(requestText, new RegExp(`POST ${receiver.url}`));
        for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type']) {
          assert.match(requestText, new RegExp(header), header);
        }
        assert.match(requestText, /"type": "[a-z_.]+"/);
        const response = page.locator('section', { hasText: 'Response' }).last();
        const responseText = (await response.textContent()) ?? '';
        assert.match(responseText, /Status 202/);
        assert.match(responseText, /x-receiver/);
        assert.match(responseText, /"note": "queued for processing"/);
        await h().check(page, 'webhook-attempt');

        await page.goto(`/console/${tenant.slug}/webhooks/events`);
        await page.locator('h1', { hasText: 'Webhook event types' }).waitFor();
        assert.ok((await page.locator('section.card h2 code').count()) >= 1);
        assert.match((await page.locator('main').textContent()) ?? '', /help_request\.crisis/);
      },
      'webhook-event-catalogue',
    );
  });
});
