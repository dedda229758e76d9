// The API reference at /docs/ in a real browser: axe-core finds no serious or critical violation
// (the names of its buttons, the contrast of its text, the page's language).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { browserSuite } from './harness.ts';

browserSuite('API reference', (h) => {
  test('the reference at /docs/ passes axe', async () => {
    await h().withPage(
      undefined,
      async (page) => {
        await page.goto('/docs/');
        await page.locator('h1').first().waitFor();
        // Every violation, not only the serious ones the harness's check looks for.
        const results = await new AxeBuilder({ page }).analyze();
        const found = results.violations
          .filter((v) => ['button-name', 'color-contrast', 'html-has-lang'].includes(v.id))
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        assert.deepEqual(found, []);
        assert.equal(await page.evaluate('document.documentElement.lang'), 'en');
      },
      'api-reference',
    );
  });
});
