// The console's OneRoster source page (Manage integrations): configure against a real provider
// over HTTP (the guard's refusal next to its field; the secret never shown back), Sync now
// queueing the pull for the worker (shown queued, then in the pull history, linking its run),
// and a failing source on the health page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pullDepsOf } from '../../src/domain/oneroster/pull/pull.ts';
import { createOneRosterPullWorker } from '../../src/workers/oneroster-pull.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { generateRoster, providerPool } from '../helpers/oneroster-provider.ts';
import { personBrowser, postForm } from '../helpers/people.ts';

describeEachDatabase(
  'console: OneRoster source',
  (context) => {
    const startProvider = providerPool();

    test('configure, Sync now, the pull history; failing on the health page; admins without the permission refused', async () => {
      const ctx = context();
      const tenant = await seedTenant(ctx, { rosterSecret: false });
      const provider = await startProvider({ data: generateRoster({ students: 5 }) });
      const manager = await personBrowser(ctx, tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const admin = await personBrowser(ctx, tenant, { roles: ['admin'] });
      const page = `/console/${tenant.slug}/oneroster-source`;

      assert.equal((await admin.request('GET', page)).statusCode, 403);
      const empty = await manager.request('GET', page);
      assert.equal(empty.statusCode, 200);
      assert.match(empty.body, /Configure the OneRoster source/);

      const fields = (overrides: Record<string, string> = {}): [string, string][] =>
        Object.entries({
          base_url: provider.baseUrl,
          token_url: provider.tokenUrl,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
          cohort_id: tenant.cohortId,
          org_ids: '',
          term_types: 'term, semester',
          campus_org_types: 'school',
          programs_from: 'orgs',
          program_org_types: 'department',
          student_id: 'identifier',
          pull_every_minutes: '',
          full_every_hours: '24',
          ...overrides,
        });
      const refused = await postForm(ctx, manager, page, fields({ base_url: 'https://10.0.0.8/oneroster' }));
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /id="or-base_url-error"[^>]*>[^<_]*private[^<_]*</);
      assert.ok(!refused.body.includes(provider.clientSecret), 'the secret is not shown back');

      const saved = await postForm(ctx, manager, page, fields());
      assert.equal(saved.statusCode, 303, saved.body);
      const shown = await manager.request('GET', `${page}?done=saved`);
      assert.match(shown.body, /The OneRoster source was saved/);
      assert.ok(!shown.body.includes(provider.clientSecret));

      // Sync now queues the pull for the worker: the page shows it queued, then in the history.
      const worker = createOneRosterPullWorker({
        deps: pullDepsOf(ctx.deps),
        institutionIds: [tenant.institutionId],
      });
      const synced = await postForm(ctx, manager, `${page}/sync`, [['mode', 'full']]);
      assert.equal(synced.statusCode, 303, synced.body);
      assert.equal(String(synced.headers.location), `${page}?done=queued`);
      const queued = await manager.request('GET', String(synced.headers.location));
      assert.match(queued.body, /The pull was queued/);
      assert.match(queued.body, /<span class="badge">queued<\/span> a full pull, asked for at/);
      assert.match(
        queued.body,
        /<td>full<\/td>\s*<td><span class="badge">queued<\/span>/,
        'atop the history',
      );
      assert.doesNotMatch(queued.body, /Sync now \(full\)/, 'no second Sync now meanwhile');
      assert.equal((await postForm(ctx, manager, `${page}/sync`, [['mode', 'full']])).statusCode, 409);
      assert.deepEqual(await worker.runOnce(), { claimed: 1, ok: 1, failed: 0 });
      const history = await manager.request('GET', page);
      assert.match(history.body, /Pull history/);
      assert.match(history.body, /<td>full<\/td>\s*<td><span class="badge ok">ok<\/span>/);
      assert.match(history.body, /Sync now \(full\)/);
      const runLink = history.body.match(new RegExp(`/console/${tenant.slug}/runs/[0-9a-f-]{36}`));
      assert.ok(runLink, 'the pull links to its run');
      const runPage = await manager.request('GET', runLink[0]);
      assert.equal(runPage.statusCode, 200);
      assert.match(runPage.body, /OneRoster pull of/);
      assert.equal(
        (await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students`)).json().items.length,
        5,
      );

      provider.down('all', 503);
      const failed = await postForm(ctx, manager, `${page}/sync`, [['mode', 'delta']]);
      assert.equal(failed.statusCode, 303);
      assert.deepEqual(await worker.runOnce(), { claimed: 1, ok: 0, failed: 1 });
      const failedRuns = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?kind=oneroster`)
      ).json().items;
      const failedRun = await manager.request('GET', `/console/${tenant.slug}/runs/${failedRuns[0].id}`);
      assert.match(failedRun.body, /HTTP 503/, 'the reason on the run page');
      const health = await manager.request('GET', `/console/${tenant.slug}/`);
      assert.match(health.body, /The OneRoster source is failing since/);
      assert.match((await manager.request('GET', page)).body, /badge bad">failing/);
    });
  },
  { config: { allowLoopbackOutbound: true }, env: {} },
);
