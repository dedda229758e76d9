// The health page's integration checklist follows what the institution's pushes actually did,
// through the real feeds: taxonomy for real, a roster dry run, a real roster push, its row
// errors, a full sync.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';

describeEachDatabase('the integration checklist', (ctx) => {
  test('each step is done when the pushes show it, and the checklist leaves once all are', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const health = async () =>
      (
        await ctx().app.inject({
          method: 'GET',
          url: `/console/${tenant.slug}/`,
          headers: { cookie: admin.cookie },
        })
      ).body;
    const todo = (html: string) => [...html.matchAll(/<li class="todo">/g)].length;
    const feed = (url: string, body: unknown) =>
      ctx().request({ method: 'POST', url, token: tenant.rosterSecret, body });

    assert.match(await health(), /Setting up the integration/);
    assert.equal(todo(await health()), 5);

    const taxonomy = await feed('/api/sis/enrolments', {
      institution: tenant.slug,
      programs: [{ code: 'NURS', name: 'Nursing' }],
    });
    assert.equal(taxonomy.statusCode, 200, taxonomy.body);
    const students = [{ email: 'ada@example.edu', student_id_ext: 'S1' }, { student_id_ext: 'S2' }];
    const dry = await feed('/api/sis/sync', { cohort_id: tenant.cohortId, dry_run: true, students });
    assert.equal(dry.statusCode, 200, dry.body);
    assert.equal(todo(await health()), 3, 'taxonomy and the dry run done; no real roster push yet');
    assert.match(
      await health(),
      /Done when the latest real \(not dry-run\) roster push, or OneRoster pull, had no row errors/,
    );

    const real = await feed('/api/sis/sync', { cohort_id: tenant.cohortId, students });
    assert.equal(real.statusCode, 200, real.body);
    const page = await health();
    assert.match(page, /The latest real roster push had 1 row error: read it on its run page/);
    assert.match(page, new RegExp(`href="/console/${tenant.slug}/runs/${real.json().run_id}">Open the run`));

    const full = await feed('/api/sis/sync', {
      cohort_id: tenant.cohortId,
      sync_id: 'nightly-1',
      final_page: true,
      students: [students[0]],
    });
    assert.equal(full.statusCode, 200, full.body);
    assert.doesNotMatch(await health(), /Setting up the integration/);
  });
});
