// An integration manager's main path in a real browser: the webhooks page (the URL guard's
// refusal next to the URL field), adding an endpoint pointing at a real local receiver (its
// signing secret shown once), a test event delivered by the webhook worker and seen with its 2xx
// status in the endpoint's delivery log; editing event types, disabling and enabling, rotating
// the signing secret and replaying failed deliveries, each destructive step confirmed. An admin
// without Manage integrations sees no Webhooks link and is refused the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { workerFor } from '../helpers/webhooks.ts';
import { browserSuite } from './harness.ts';

const receivers = receiverPool();

browserSuite('console: integration manager', (h) => {
  test('adds a webhook endpoint, sends a test event and sees it delivered', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const receiver = await receivers({ status: 204 });
    const manager = await h().person(tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
      name: 'Ivy Integrations',
    });
    const { page, context } = await h().open(manager);
    // The worker reads the same clock as the service, so a delivery queued by a click is due at once.
    const worker = workerFor(ctx, tenant, ctx.deps.clock);
    try {
      await page.goto(`/console/${tenant.slug}/`);
      await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
      await page.locator('h1', { hasText: 'Webhooks' }).waitFor();
      await h().check(page, 'integrations-webhooks-empty');

      // The URL guard refuses a private address: its message is next to the URL field.
      await page.getByLabel('URL').fill('https://10.0.0.1/hook');
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const urlError = page.locator('#endpoint-url-error');
      await urlError.waitFor();
      assert.match(
        (await urlError.textContent()) ?? '',
        /^10\.0\.0\.1 is a private network address, which the service does not call$/,
      );
      assert.equal(await page.getByLabel('URL').inputValue(), 'https://10.0.0.1/hook');
      await h().check(page, 'integrations-webhooks-refused');

      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('help_request.crisis').check();
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const secret = await page.getByLabel('The signing secret').inputValue();
      assert.match(secret, /^whsec_/);
      await h().check(page, 'integrations-webhook-secret');
      await page.getByRole('link', { name: 'Done' }).click();
      await page.locator('h1', { hasText: receiver.url }).waitFor();

      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByText('A test event was queued').waitFor();
      await worker.drain();
      assert.equal(receiver.received.length, 1);
      await page.reload();
      const log = page.locator('section', { hasText: 'Delivery log' });
      await log.getByText('succeeded').waitFor();
      assert.match((await log.locator('ul.attempts').textContent()) ?? '', /204, \d+ ms/);
      await h().check(page, 'integrations-webhook');

      // Event types: every type.
      await page.getByLabel('help_request.crisis').uncheck();
      await page.getByRole('button', { name: 'Save the event types' }).click();
      await page.getByText('The event types were saved').waitFor();

      // Disable (pending deliveries fail), then replay since a time, confirmed, then enable.
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('The endpoint was disabled').waitFor();
      await page.getByRole('button', { name: 'Enable' }).waitFor();
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByText('The endpoint was enabled').waitFor();

      await page.getByLabel('Events recorded since (UTC)').fill('2020-01-01T00:00');
      await page.getByRole('button', { name: 'Replay…' }).click();
      await page.locator('h1', { hasText: 'Replay failed deliveries?' }).waitFor();
      await h().check(page, 'integrations-replay-confirm');
      await page.getByRole('button', { name: 'Replay the failed deliveries' }).click();
      await page.getByText('The failed deliveries were queued again').waitFor();

      // Redeliver the test event: a second delivery reaches the receiver.
      await page.getByRole('button', { name: /Redeliver the webhook.test event/ }).click();
      await page.getByText('The event was queued to be delivered again').waitFor();
      await worker.drain();
      assert.equal(receiver.received.length, 2);

      // Rotation asks first, then shows the new secret once with the overlap window's end.
      await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
      await page.locator('h1', { hasText: 'Rotate the signing secret?' }).waitFor();
      await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
      const rotated = await page.getByLabel('The signing secret').inputValue();
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      await page.getByText(/The previous secret also signs deliveries until/).waitFor();
      await h().check(page, 'integrations-webhook-rotated');

      await page.goto(`/console/${tenant.slug}/webhooks`);
      assert.equal(await page.getByRole('link', { name: receiver.url }).count(), 1);
      await h().check(page, 'integrations-webhooks');

      // A disabled endpoint needs attention on the health page, with a link to its page.
      await page.getByRole('link', { name: receiver.url }).click();
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('The endpoint was disabled').waitFor();
      await page.goto(`/console/${tenant.slug}/`);
      const attention = page.locator('section', { hasText: 'Needs attention' });
      await attention.getByRole('link', { name: /disabled by an administrator/ }).click();
      await page.locator('h1', { hasText: receiver.url }).waitFor();
      await page.goto(`/console/${tenant.slug}/`);
      await h().check(page, 'integrations-health');
    } finally {
      await worker.close();
      await context.close();
    }
  });

  test('an admin without Manage integrations has no webhooks', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const admin = await h().person(tenant, { roles: ['admin'], name: 'Ada Admin' });
    const { page, context } = await h().open(admin);
    try {
      await page.goto(`/console/${tenant.slug}/`);
      assert.equal(await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).count(), 0);
      const response = await page.goto(`/console/${tenant.slug}/webhooks`);
      assert.equal(response?.status(), 403);
    } finally {
      await context.close();
    }
  });
});
