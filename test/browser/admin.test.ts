// An institution admin's main path in a real browser, signing in through the real test
// identity provider: integration health, issuing a roster secret (confirmed, shown once), a push
// with row errors in the push history and its CSV, the help-sync secret, people and the
// identity-provider settings with the API's errors next to their fields.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { type DevIdp, startTestIdp, TEST_CLIENT } from '../helpers/idp.ts';
import { invitePerson } from '../helpers/people.ts';
import { downloadText } from './chromium.ts';
import { browserSuite } from './harness.ts';

let idp: DevIdp | undefined;
after(async () => {
  await idp?.close();
});

browserSuite('console: institution admin', (h) => {
  before(async () => {
    idp = await startTestIdp({ clients: [{ ...TEST_CLIENT, redirect_uris: [`${h().base}/auth/callback`] }] });
  });

  test('signs in, issues the roster secret, finds a push with errors and downloads its CSV', async () => {
    const { ctx, base } = h();
    const tenant = await seedTenant(ctx);
    const put = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/identity-provider`, {
      issuer: idp!.issuer,
      client_id: TEST_CLIENT.client_id,
      client_secret: TEST_CLIENT.client_secret,
      email_domains: ['example.edu'],
    });
    assert.equal(put.statusCode, 200, put.body);
    await invitePerson(ctx, tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
      email: 'admin@example.edu',
      name: 'Alex Admin',
    });

    await h().withPage(undefined, async (page) => {
      // Not signed in: to the institution's provider and back to the page asked for.
      await page.goto(`/console/${tenant.slug}/secrets`);
      await page.getByRole('button', { name: /Alex Admin/ }).click();
      await page.waitForURL(`**/console/${tenant.slug}/secrets`);
      assert.equal(await page.locator('h1').textContent(), 'Secrets');

      await page.getByRole('link', { name: 'Integration health' }).click();
      await page.locator('h1', { hasText: 'Integration health' }).waitFor();
      await h().check(page, 'admin-health');

      // A new roster secret replaces a working one: confirmation first.
      await page.goto(`/console/${tenant.slug}/secrets`);
      await h().check(page, 'admin-secrets');
      await page.getByRole('button', { name: 'Issue a new roster secret' }).click();
      await page.locator('h1', { hasText: 'Replace the roster secret?' }).waitFor();
      await h().check(page, 'admin-secrets-confirm');
      await page.getByRole('button', { name: /Issue a new secret and revoke/ }).click();
      const secret = await page.getByLabel('The roster secret').inputValue();
      assert.match(secret, /^ssp_roster_/);
      assert.ok(await page.getByRole('button', { name: 'Copy to the clipboard' }).isVisible());
      await h().check(page, 'admin-secret-shown');

      // The SIS pushes with the new secret: one good row, two refused.
      const push = await fetch(`${base}/api/sis/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          cohort_id: tenant.cohortId,
          sync_id: 'nightly-1',
          students: [
            {
              email: 'ok@student.example.edu',
              student_id_ext: 'S-1',
              first_name: 'Ana',
              program_code: 'XYZ',
            },
            { email: 'not-an-email', student_id_ext: 'S-2' },
            { student_id_ext: 'S-3', first_name: '=cmd()' },
          ],
        }),
      });
      assert.equal(push.status, 200);
      const pushed = (await push.json()) as { errors: unknown[] };
      assert.equal(pushed.errors.length, 2);

      await page.getByRole('link', { name: 'Push history' }).click();
      await page.locator('h1', { hasText: 'Push history' }).waitFor();
      await page.locator('#runs-chart canvas').first().waitFor();
      // The push is marked as a page of a full sync, with how long it took.
      await page.locator('table tbody tr .badge', { hasText: 'full sync' }).first().waitFor();
      assert.match(
        (await page
          .getByRole('table', { name: 'Pushes, newest first' })
          .locator('tbody tr td')
          .nth(1)
          .textContent()) ?? '',
        /^\d+(\.\d)? s$/,
      );
      await h().check(page, 'admin-push-history');
      await page.getByLabel('With row errors only').check();
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.locator('table tbody tr td a').first().click();
      await page.locator('#row-errors').waitFor();
      assert.equal(await page.locator('#row-errors tbody tr').count(), 2);
      // Each error names its record by the keys the row was sent with, beside its line: the row's
      // 1-based place in the push when the client sends no file lines.
      assert.deepEqual((await page.locator('#row-errors thead th').allTextContents()).slice(0, 4), [
        'Line',
        'Email',
        'Student ID',
        'Field',
      ]);
      assert.deepEqual(
        (await page.locator('#row-errors tbody tr').first().locator('td').allTextContents()).slice(0, 3),
        ['2', 'not-an-email', 'S-2'],
      );
      assert.deepEqual(
        (await page.locator('#row-errors tbody tr').nth(1).locator('td').allTextContents()).slice(0, 3),
        ['3', '', 'S-3'],
      );
      // Warnings are sentences naming the rows they affect.
      assert.match(
        (await page.locator('li', { hasText: 'program code XYZ' }).textContent()) ?? '',
        /^1 row names program code XYZ, which is not in your programs: line 1\./,
      );
      await h().check(page, 'admin-push');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: /Download the errors/ }).click(),
      ]);
      const csv = await downloadText(download);
      const lines = csv.trim().split('\r\n');
      assert.equal(lines.length, 4, csv);
      assert.match(lines[0], /^kind,line,email,student_id_ext,code,/);
      assert.match(lines[1], /^error,2,not-an-email,S-2,invalid_field,/);
      assert.match(lines[2], /^error,3,,S-3,missing_field,/);
      assert.match(lines[3], /^warning,.*1 row names program code XYZ/);
      assert.ok(!/,=cmd/.test(csv), 'formula-like cells are neutralised');

      // The help-sync secret (Manage integrations).
      await page.goto(`/console/${tenant.slug}/secrets`);
      await page.getByRole('button', { name: 'Issue the help-sync secret' }).click();
      assert.match(await page.getByLabel('The help-sync secret').inputValue(), /^ssp_sync_/);

      // People: the form's problem sits next to its field, in words; a valid invitation lands in the list.
      await page.goto(`/console/${tenant.slug}/people`);
      await h().check(page, 'admin-people');
      await page.getByLabel('Email', { exact: true }).fill('not an email');
      await page.getByLabel('Name', { exact: true }).fill('Sam Staff');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.locator('#invite-email-error').waitFor();
      assert.match((await page.locator('#invite-email-error').textContent()) ?? '', /Enter an email address/);
      await h().check(page, 'admin-people-error');
      await page.getByLabel('Email', { exact: true }).fill('staff@example.edu');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.waitForURL('**/people?done=person_invited');
      await page.getByRole('link', { name: 'Sam Staff' }).click();
      await h().check(page, 'admin-person');
      await page.getByRole('button', { name: 'Remove this person' }).click();
      await page.locator('h1', { hasText: 'Remove Sam Staff?' }).waitFor();
      await page.getByRole('button', { name: 'Remove this person' }).click();
      await page.waitForURL('**/people?done=person_removed');
      assert.equal(await page.getByRole('link', { name: 'Sam Staff' }).count(), 0);

      // The provider's issuer must be https (the URL guard): refused next to the field.
      await page.getByLabel('Issuer URL').fill('http://10.0.0.1/');
      await page.getByRole('button', { name: 'Save the provider settings' }).click();
      await page.locator('#idp-issuer-error, .error[role=alert]').first().waitFor();
      await h().check(page, 'admin-identity-provider-error');

      // The audit: what this admin just did (the invitation, the removal), newest first.
      await page.getByRole('link', { name: 'Audit', exact: true }).click();
      await page.locator('h1', { hasText: 'Audit' }).waitFor();
      const audit = (await page.locator('#audit').textContent()) ?? '';
      assert.match(audit, /Alex Admin removed Sam Staff/);
      assert.match(audit, /Alex Admin invited Sam Staff/);
      await h().check(page, 'admin-audit');
      await page.getByLabel('From (UTC)').fill('2020-01-01');
      await page.getByLabel('To (UTC)').fill('2020-01-02');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('No entry matches.').waitFor();
    });
  });
});
