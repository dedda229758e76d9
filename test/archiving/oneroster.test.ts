// A OneRoster source and archiving (docs/archiving.md): a source cannot be pointed at an
// archived cohort; one whose cohort is archived answers "Sync now" with 409 cohort_archived and
// is not claimed by the worker, nor is an archived institution's; both are pulled again once
// restored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimDueSources, pullDepsOf } from '../../src/domain/oneroster/pull/pull.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { configureSource, generateRoster, providerPool } from '../helpers/oneroster-provider.ts';

const startProvider = providerPool();

describeEachDatabase(
  'archiving: OneRoster sources',
  (ctx) => {
    test('an archived cohort or institution is not pulled; Sync now answers cohort_archived', async () => {
      const tenant = await seedTenant(ctx());
      const provider = await startProvider({
        data: generateRoster({ students: 2 }),
        maxLimit: 1000,
      });
      const base = `/admin/v1/institutions/${tenant.slug}`;
      const cohort = `${base}/cohorts/${tenant.cohortId}`;
      const due = async () =>
        (await claimDueSources(pullDepsOf(ctx().deps), 10, [tenant.institutionId])).length;
      const release = () =>
        ctx().db.query(
          'UPDATE oneroster_sources SET lease_token = NULL, lease_until = NULL WHERE institution_id = $1',
          [tenant.institutionId],
        );

      assert.equal((await ctx().admin('POST', `${cohort}/archive`)).statusCode, 200);
      const refused = await configureSource(ctx(), tenant.slug, provider, {
        cohort_id: tenant.cohortId,
        pull_every_minutes: 5,
      });
      assert.equal(refused.statusCode, 409, refused.body);
      assert.deepEqual([refused.json().error, refused.json().field], ['cohort_archived', 'cohort_id']);

      assert.equal((await ctx().admin('POST', `${cohort}/restore`)).statusCode, 200);
      const saved = await configureSource(ctx(), tenant.slug, provider, {
        cohort_id: tenant.cohortId,
        pull_every_minutes: 5,
      });
      assert.equal(saved.statusCode, 200, saved.body);
      // Due at once (its first pull), then archived: neither the worker nor Sync now pulls it.
      await ctx().admin('POST', `${cohort}/archive`);
      assert.equal(await due(), 0, 'the worker skips a source whose cohort is archived');
      const syncNow = await ctx().admin('POST', `${base}/oneroster-source/pulls`);
      assert.equal(syncNow.statusCode, 409, syncNow.body);
      assert.equal(syncNow.json().error, 'cohort_archived');

      await ctx().admin('POST', `${cohort}/restore`);
      await ctx().admin('POST', `${base}/archive`);
      assert.equal(await due(), 0, "the worker skips an archived institution's source");
      assert.equal(
        (await ctx().admin('POST', `${base}/oneroster-source/pulls`)).json().error,
        'institution_archived',
      );

      await ctx().admin('POST', `${base}/restore`);
      assert.equal(await due(), 1, 'restored: due again at once');
      await release();
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
