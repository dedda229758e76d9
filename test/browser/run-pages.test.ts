// The push history tells the truth, in a real browser: an enrolments push's run page has a table
// per section (no JSON), the list counts what a taxonomy push created, the chart's numbers are
// real pushes only with dry runs apart, and a roster push of identical rows says "unchanged".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: run pages', (h) => {
  test('sections as tables, taxonomy counts, dry runs apart, identical rows unchanged', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const feed = async (url: string, body: unknown) => {
      const res = await ctx.request({ method: 'POST', url, token: tenant.rosterSecret, body });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { run_id: string };
    };
    const taxonomy = {
      institution: tenant.slug,
      programs: [
        { program_code: 'NURS', name: 'Nursing' },
        { program_code: 'ARTS', name: 'Arts' },
      ],
      campuses: [{ name: 'North' }, { name: 'South' }],
    };
    const pushed = await feed('/api/sis/enrolments', taxonomy);
    // A dry run with errors: counted apart from the real pushes.
    await feed('/api/sis/sync', {
      cohort_id: tenant.cohortId,
      dry_run: true,
      students: [{ email: 'bad' }, { email: 'bad2' }, { email: 'bad3' }],
    });
    const students = [
      { email: 'ada@example.edu', student_id_ext: 'S1', first_name: 'Ada' },
      { email: 'ben@example.edu', student_id_ext: 'S2', first_name: 'Ben' },
    ];
    await feed('/api/sis/sync', { cohort_id: tenant.cohortId, students });
    const again = await feed('/api/sis/sync', { cohort_id: tenant.cohortId, students });
    // A row error about a stored student names them beside the keys.
    const refused = await feed('/api/sis/enrolments', {
      institution: tenant.slug,
      enrolments: [{ student_id_ext: 'S2', unit_code: 'NURS9', term_code: '2026-S1' }],
    });

    const admin = await h().person(tenant, { roles: ['admin'] });
    await h().withPage(
      admin,
      async (page) => {
        const base = `/console/${tenant.slug}/runs`;
        await page.goto(`${base}/${pushed.run_id}`);
        const counts = page.locator('#run-counts');
        assert.deepEqual(await counts.locator('thead th').allTextContents(), [
          'Section',
          'Received',
          'Created',
          'Updated',
          'Unchanged',
          'Rejected',
        ]);
        assert.deepEqual(await counts.locator('tbody tr').allInnerTexts(), [
          'Programs\t2\t2\t0\t0\t0',
          'Campuses\t2\t2\t0\t0\t0',
        ]);
        assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /[{}]/);
        await h().check(page, 'run-enrolments-sections');

        await page.goto(`${base}/${again.run_id}`);
        assert.deepEqual(await page.locator('#run-counts tbody tr').allInnerTexts(), ['Students\t0\t0\t2']);
        await h().check(page, 'run-roster-unchanged');

        await page.goto(`${base}/${refused.run_id}`);
        const errorRow = (
          await page.locator('#row-errors tbody tr').first().locator('td').allTextContents()
        ).map((t) => t.trim());
        assert.deepEqual(errorRow.slice(0, 5), ['Enrolments', '1', '', 'S2', 'Ben']);
        await h().check(page, 'run-error-named');

        await page.goto(base);
        const list = page.locator('table:not(#runs-days) tbody tr');
        const rows = await list.allInnerTexts();
        const enrolmentsRow = rows.findLast((r) => r.includes('enrolments'));
        assert.match(enrolmentsRow ?? '', /\tenrolments\t4\t4\t0\t0$/);
        // The chart's numbers: today's real pushes (4, 6 created, the 2 row errors of the refused enrolment), the dry run apart.
        const today = page.locator('#runs-days tbody tr').last();
        assert.deepEqual(await today.locator('td').allTextContents(), ['4', '6', '0', '2', '1', '3']);
        assert.match((await page.locator('#chart-title + p').textContent()) ?? '', /1 in these 30 days/);
      },
      'runs-chart-real-pushes',
    );
  });
});
