// Pages speak in words, in a real browser: an error page says what happened and keeps the code
// and the request id in a "Details" disclosure; a run's row errors are columns in words.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { startSession } from '../../src/domain/people/sessions.ts';
import { seedTenant } from '../helpers/app.ts';
import { pushRoster } from '../helpers/roster.ts';
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
    const student = await pushRoster(ctx, tenant, {
      students: [{ email: 'sam@example.edu', student_id_ext: 'S1' }],
    });
    assert.equal(student.statusCode, 200, student.body);
    const list = await ctx.admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?email=sam@example.edu`,
    );
    const session = await startSession(ctx.deps, {
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
      await h().withPage(who, async (page) => {
        await page.goto(url);
        assert.doesNotMatch(await textOutsideDetails(page), new RegExp(`${code}|Code:`), url);
        const details = page.locator('details', { hasText: 'Details' });
        await details.locator('summary').click();
        assert.match((await details.textContent()) ?? '', new RegExp(`${code}[\\s\\S]*[0-9a-z-]{6,}`));
        await h().check(page, shot);
      });
    }
  });

  test('forms answer one way: no browser bubbles, every problem at once (URLs too), a linked summary on top', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const manager = await h().person(tenant, { roles: ['admin'], permissions: ['manage_integrations'] });
    await h().withPage(
      manager,
      async (page) => {
        // The OneRoster source: a private base URL and nothing else filled in. The browser sends it
        // as it is (no "Please fill out this field."), and the page names every problem at once.
        await page.goto(`/console/${tenant.slug}/oneroster-source`);
        await page.getByLabel('Base URL').fill('https://10.0.0.8/ims/oneroster/rostering/v1p2');
        await page.getByRole('button', { name: 'Save the OneRoster source' }).click();
        const summary = page.locator('.error-summary');
        await summary.waitFor();
        const links = summary.getByRole('link');
        const texts = await links.allTextContents();
        assert.ok(texts.length >= 4, texts.join(' | '));
        assert.ok(
          texts.some((t) => /private network address/.test(t)),
          'the URL with the rest',
        );
        assert.ok(
          texts.some((t) => /token URL/i.test(t)),
          texts.join(' | '),
        );
        assert.equal(await page.evaluate('document.activeElement?.className'), 'error-summary');
        await h().check(page, 'words-oneroster-all-problems');
        // A link leads to its field.
        await links.first().click();
        assert.equal(await page.evaluate('document.activeElement?.id'), 'or-base_url');

        // A webhook endpoint: an empty URL and a description far too long, both at once.
        await page.goto(`/console/${tenant.slug}/webhooks`);
        await page.getByLabel('Description (optional)').fill('x'.repeat(600));
        await page.getByRole('button', { name: 'Add the endpoint' }).click();
        await summary.waitFor();
        assert.deepEqual(await summary.getByRole('link').count(), 2);
        assert.match((await page.locator('#endpoint-url-error').textContent()) ?? '', /Enter the URL/);
        await h().check(page, 'words-webhook-all-problems');

        // The time zone: the same words on the institution's time-zone form as on the operator's.
        await page.goto(`/console/${tenant.slug}/cohorts`);
        await page.getByLabel('The institution’s time zone').fill('Mars/Olympus');
        await page.getByRole('button', { name: 'Save the time zone' }).click();
        await summary.waitFor();
        assert.match(
          (await page.locator('#time-zone-error').textContent()) ?? '',
          /^Enter a time zone from the list, such as Australia\/Sydney or UTC$/,
        );
      },
      'words-time-zone',
    );
  });

  test('the audit speaks in sentences, on the page and in its CSV', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const manager = await h().person(tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
      name: 'Ira Admin',
    });
    await h().withPage(manager, async (page) => {
      const url = 'http://127.0.0.1:9/hooks/ssp';
      await page.goto(`/console/${tenant.slug}/webhooks`);
      await page.getByLabel('URL').fill(url);
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      await page.goto(`/console/${tenant.slug}/webhooks`);
      await page.getByRole('link', { name: url }).click();
      await page.getByRole('button', { name: 'Delete…' }).click();
      await page.locator('form.actions button.danger').click();
      await page.goto(`/console/${tenant.slug}/secrets`);
      await page.getByRole('button', { name: 'Issue the help-sync secret' }).click();
      await page.goto(`/console/${tenant.slug}/secrets`);
      await page.getByRole('button', { name: 'Rotate the help-sync secret' }).click();
      await page.locator('form.actions button.danger').click();

      await page.goto(`/console/${tenant.slug}/audit`);
      const rows = await page.locator('#audit tbody td:nth-child(2)').allTextContents();
      const said = rows.map((r) => r.replace(/\s+/g, ' ').trim());
      assert.ok(
        said.some((r) => r.startsWith(`Ira Admin deleted the webhook endpoint ${url}`)),
        said.join('\n'),
      );
      assert.ok(
        said.some((r) => r.startsWith(`Ira Admin added the webhook endpoint ${url}`)),
        said.join('\n'),
      );
      assert.ok(
        said.some((r) => r.startsWith('Ira Admin issued a help-sync secret')),
        said.join('\n'),
      );
      assert.ok(
        said.some((r) => r.startsWith('Ira Admin rolled the help-sync secret')),
        said.join('\n'),
      );
      assert.doesNotMatch(said.join('\n'), /POST|DELETE|:id/);
      await h().check(page, 'words-audit');

      const csv = await page.request.get(`/console/${tenant.slug}/audit.csv`);
      const text = await csv.text();
      assert.match(text, new RegExp(`Ira Admin deleted the webhook endpoint ${url.replaceAll('.', '\\.')}`));
      assert.match(text, /Ira Admin rolled the help-sync secret/);
    });
  });

  test('the student pages: everything inside a landmark, the urgent bar too (axe region)', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const pushed = await pushRoster(ctx, tenant, {
      students: [{ email: 'kim@example.edu', student_id_ext: 'K1' }],
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
    const list = await ctx.admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?email=kim@example.edu`,
    );
    const session = await startSession(ctx.deps, {
      kind: 'student',
      studentId: list.json().items[0].id,
      institutionId: tenant.institutionId,
    });
    await h().withPage(
      session,
      async (page) => {
        for (const path of ['/app/', '/app/requests', '/app/requests/new', '/app/crisis']) {
          await page.goto(path);
          const results = await new AxeBuilder({ page }).withRules(['region']).analyze();
          assert.deepEqual(
            results.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' '))),
            [],
            path,
          );
        }
        assert.equal(await page.getByRole('complementary', { name: 'Urgent help' }).count(), 1);
      },
      'words-student-urgent-bar',
    );
  });

  test("the operator's institutions list: each one's students, last push and open problems", async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const pushed = await pushRoster(ctx, tenant, {
      students: [
        { email: 'a@example.edu', student_id_ext: 'A1' },
        { email: 'bad' },
        { email: 'c@example.edu', student_id_ext: 'C1' },
      ],
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
    const operator = await h().operator();
    await h().withPage(
      operator,
      async (page) => {
        await page.goto('/console/');
        const row = page.locator('tr', { hasText: tenant.slug });
        const cells = (await row.locator('td').allTextContents()).map((c) => c.trim());
        assert.equal(cells[2], '2', cells.join(' | '));
        assert.match(cells[3], /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
        assert.equal(cells[4], '1 row error in the last push');
      },
      'words-operator-institutions',
    );
  });
});
