// The planner's statistics after a feed page that wrote a large share of a table
// (src/db/statistics.ts): the rule, and the feeds analyzing on both databases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANALYZE_MIN_ROWS, refreshStatistics, staleAfter } from '../../src/db/statistics.ts';
import { syncRoster } from '../../src/domain/roster/sync.ts';
import { pushTaxonomy } from '../../src/domain/taxonomy/push.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

test("the rule: at least ANALYZE_MIN_ROWS rows and a tenth of the institution's rows", () => {
  assert.equal(staleAfter(ANALYZE_MIN_ROWS - 1, ANALYZE_MIN_ROWS - 1), false, 'a small page never');
  assert.equal(staleAfter(ANALYZE_MIN_ROWS, ANALYZE_MIN_ROWS), true, "an institution's first page");
  assert.equal(staleAfter(5000, 20_000), true, 'a page of 5000 into 20,000');
  assert.equal(staleAfter(5000, 60_000), false, 'a page of 5000 into 60,000');
  assert.equal(staleAfter(5000, 1_000_000), false);
});

describeEachDatabase('planner statistics after feed pages', (context) => {
  const reltuples = async (table: string) => {
    const { rows } = await context().db.query<{ reltuples: number }>(
      'SELECT reltuples FROM pg_class WHERE oid = $1::regclass',
      [table],
    );
    return Number(rows[0].reltuples);
  };

  test('an enrolments push that wrote a large share analyzes its tables (a roster page does not need to)', async () => {
    const ctx = context();
    const tenant = await seedTenant(ctx);
    const roster = await syncRoster(ctx.deps, {
      institutionId: tenant.institutionId,
      cohortId: tenant.cohortId,
      students: Array.from({ length: 1500 }, (_, i) => ({
        email: `st${i}@stats.example.edu`,
        student_id_ext: `T${i}`,
      })),
      dryRun: false,
      credential: 'institution_secret',
    });
    assert.equal(roster.created, 1500);

    const institution = { id: tenant.institutionId, slug: tenant.slug };
    await pushTaxonomy(
      ctx.deps,
      institution,
      {
        terms: [{ term_code: 'T1', start_date: '2026-02-01', end_date: '2026-06-30' }],
        units: [{ unit_code: 'U1' }],
        enrolments: Array.from({ length: 1200 }, (_, i) => ({
          student_id_ext: `T${i}`,
          unit_code: 'U1',
          term_code: 'T1',
          status: 'enrolled',
        })),
      },
      { dryRun: false, credential: 'institution_secret' },
    );
    assert.ok((await reltuples('enrolments')) >= 1200, 'the enrolments counted at once');
    // A small write analyzes nothing (and asks nothing of the database).
    assert.deepEqual(
      await refreshStatistics(ctx.db, tenant.institutionId, { students: 10, enrolments: 999 }),
      [],
    );
    // 1000 rows changed of an institution's 20,000 would not either; of its 1500, they do.
    assert.deepEqual(await refreshStatistics(ctx.db, tenant.institutionId, { students: 1000 }), ['students']);
  });
});
