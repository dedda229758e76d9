import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordRun } from '../../src/domain/runs/runs.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

describeEachDatabase('run history', (ctx) => {
  test('lists runs newest first and reads one with its errors; other tenants see nothing', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    const errors = Array.from({ length: 1005 }, (_, row) => ({ row, message: 'email is required' }));
    const first = await recordRun(ctx().db, {
      institutionId: tenant.institutionId,
      kind: 'roster',
      credential: 'institution_secret',
      cohortId: tenant.cohortId,
      dryRun: true,
      received: 1010,
      counts: { would_create: 5, would_update: 0 },
      errors,
      startedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const second = await recordRun(ctx().db, {
      institutionId: tenant.institutionId,
      kind: 'enrolments',
      credential: 'bootstrap_secret',
      sections: ['programs', 'campuses'],
      dryRun: false,
      received: 2,
      counts: { programs: { created: 1 } },
      errors: [],
      startedAt: new Date('2026-01-02T00:00:00Z'),
    });

    const list = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs`);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().items.map((r: { id: string }) => r.id),
      [second, first],
    );
    const rosterOnly = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?kind=roster`);
    assert.deepEqual(
      rosterOnly.json().items.map((r: { id: string }) => r.id),
      [first],
    );

    const one = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${first}`);
    assert.equal(one.statusCode, 200);
    const run = one.json();
    assert.equal(run.error_count, 1005);
    assert.equal(run.errors.length, 1000);
    assert.equal(run.errors_truncated, true);
    assert.equal(run.cohort_id, tenant.cohortId);
    assert.equal(run.credential, 'institution_secret');

    const foreign = await ctx().admin('GET', `/admin/v1/institutions/${other.slug}/runs/${first}`);
    assert.equal(foreign.statusCode, 404);
    const notUuid = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/not-a-uuid`);
    assert.equal(notUuid.statusCode, 404);
    const otherList = await ctx().admin('GET', `/admin/v1/institutions/${other.slug}/runs`);
    assert.deepEqual(otherList.json().items, []);
  });
});
