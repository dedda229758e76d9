// A cohort's page hands the admin what a first push needs: the cohort id to copy and ready
// commands. The curl command's request is the real feed's: sent as it is (with the roster
// secret), it is a dry run that changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';

describeEachDatabase("a cohort's first push", (ctx) => {
  test('the id, the ssp command and a curl request the feed accepts as a dry run', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const res = await ctx().app.inject({
      method: 'GET',
      url: `/console/${tenant.slug}/cohorts/${tenant.cohortId}`,
      headers: { cookie: admin.cookie },
    });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, new RegExp(`id="cohort-id" class="secret" value="${tenant.cohortId}"`));
    assert.match(
      res.body,
      new RegExp(`npx ssp push roster --cohort ${tenant.cohortId} roster.csv --dry-run`),
    );
    const curl = /<textarea id="curl-command"[^>]*>([\s\S]*?)<\/textarea>/.exec(res.body)?.[1] ?? '';
    const text = curl.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
    const body = /-d '(.*)'/.exec(text)?.[1];
    assert.ok(body, 'a JSON body in the curl command');
    const pushed = await ctx().request({
      method: 'POST',
      url: '/api/sis/sync',
      token: tenant.rosterSecret,
      body: JSON.parse(body),
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
    assert.equal(pushed.json().dry_run, true);
    const { rows } = await ctx().db.query('SELECT 1 FROM students WHERE institution_id = $1', [
      tenant.institutionId,
    ]);
    assert.equal(rows.length, 0, 'a dry run changes nothing');
  });
});
