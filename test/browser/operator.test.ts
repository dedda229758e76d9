// The operator's main path in a real browser: the institutions list, a refused slug shown next
// to its field, creating an institution, and going into its console.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserSuite } from './harness.ts';

browserSuite('console: operator', (h) => {
  test('the operator creates an institution and opens its console', async () => {
    await h().withPage(await h().operator(), async (page) => {
      await page.goto('/console/');
      assert.equal(await page.locator('h1').textContent(), 'Institutions');
      await h().check(page, 'operator-institutions');

      // A slug the API's schema refuses: its problem sits next to the field, the typed values are kept.
      const slug = `uni-${Date.now().toString(36)}`;
      await page.getByLabel('Name').fill('University of Testing');
      await page.getByLabel('Slug').fill('Not A Slug');
      await page.getByRole('button', { name: 'Create institution' }).click();
      await page.locator('#slug-error').waitFor();
      assert.match(
        (await page.locator('#slug-error').textContent()) ?? '',
        /Enter a slug of lower-case letters/,
      );
      assert.equal(await page.getByLabel('Name').inputValue(), 'University of Testing');
      await h().check(page, 'operator-institutions-error');

      // A slug longer than allowed is neither cut by the browser nor by the server: refused in words.
      const long = `u${'n'.repeat(69)}`;
      await page.getByLabel('Slug').fill(long);
      assert.equal(await page.getByLabel('Slug').inputValue(), long, 'the field takes it whole');
      await page.getByRole('button', { name: 'Create institution' }).click();
      await page.locator('#slug-error', { hasText: 'Slug must be 63 characters or fewer' }).waitFor();
      assert.equal(await page.getByLabel('Slug').inputValue(), long, 'shown again as typed');

      await page.getByLabel('Slug').fill(slug);
      await page.getByLabel('Time zone').fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Create institution' }).click();
      await page.locator('#time-zone-error').waitFor();
      assert.match(
        (await page.locator('#time-zone-error').textContent()) ?? '',
        /Enter a time zone from the list, such as/,
      );
      await page.getByLabel('Time zone').fill('australia/sydney');
      await page.getByRole('button', { name: 'Create institution' }).click();
      await page.waitForURL(`**/console/${slug}/?done=institution_created`);
      const created = await h().ctx.admin('GET', `/admin/v1/institutions/${slug}`);
      assert.equal(created.json().time_zone, 'Australia/Sydney');
      assert.equal(await page.locator('h1').textContent(), 'Integration health');
      assert.match((await page.locator('.success').textContent()) ?? '', /institution was created/);
      await h().check(page, 'operator-new-institution-health');

      await page.goto('/console/');
      await page.getByRole('link', { name: 'Open the console of University of Testing' }).first().click();
      await page.waitForURL(`**/console/${slug}/`);
    });
  });
});
