// Full-sync departures and the run history through POST /api/sis/sync.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';

const student = (n: number) => ({
  email: `learner${n}@example.edu`,
  student_id_ext: `L${n}`,
  first_name: `L${n}`,
});
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => student(from + i));

function push(ctx: TestContext, tenant: SeededTenant, body: Record<string, unknown>) {
  return ctx.request({
    method: 'POST',
    url: '/api/sis/sync',
    token: tenant.rosterSecret,
    body: { cohort_id: tenant.cohortId, ...body },
  });
}

async function departed(ctx: TestContext, tenant: SeededTenant): Promise<string[]> {
  const res = await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students?status=departed`);
  return res
    .json()
    .items.map((s: { student_id_ext: string }) => s.student_id_ext)
    .sort();
}

describeEachDatabase('roster full sync and departures over HTTP', (ctx) => {
  test('pages of a full sync depart the students no page named; a later push brings them back', async () => {
    const tenant = await seedTenant(ctx());
    assert.equal((await push(ctx(), tenant, { students: range(1, 20) })).statusCode, 200);

    const page1 = await push(ctx(), tenant, { students: range(1, 10), sync_id: 'night-1' });
    assert.equal(page1.statusCode, 200, page1.body);
    assert.deepEqual(page1.json().full_sync, {
      sync_id: 'night-1',
      status: 'open',
      pages: 1,
      final_page: false,
      threshold: 0.1,
    });
    // Absent students are untouched until the final page.
    assert.deepEqual(await departed(ctx(), tenant), []);

    // Row 9 is broken (no student_id_ext) but still names learner19 by email.
    const preview = await push(ctx(), tenant, {
      students: [...range(11, 18), { email: 'learner19@example.edu' }],
      sync_id: 'night-1',
      final_page: true,
      dry_run: true,
    });
    assert.equal(preview.json().full_sync.would_depart, 1);
    assert.equal(preview.json().full_sync.would_hold, false);

    const last = await push(ctx(), tenant, {
      students: [...range(11, 18), { email: 'learner19@example.edu' }],
      sync_id: 'night-1',
      final_page: true,
    });
    assert.equal(last.statusCode, 200, last.body);
    assert.equal(last.json().errors.length, 1);
    assert.equal(last.json().full_sync.status, 'applied');
    assert.equal(last.json().full_sync.departures, 1);
    assert.deepEqual(await departed(ctx(), tenant), ['L20']);

    const back = await push(ctx(), tenant, { students: range(20, 20) });
    assert.equal(back.statusCode, 200);
    assert.deepEqual(await departed(ctx(), tenant), []);
  });

  test('departures over the threshold are held; creates and updates still apply', async () => {
    const tenant = await seedTenant(ctx());
    await push(ctx(), tenant, { students: range(1, 10) });
    const res = await push(ctx(), tenant, {
      students: [...range(1, 5), student(11)],
      sync_id: 'thin',
      final_page: true,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().created, 1);
    assert.equal(res.json().full_sync.status, 'held');
    assert.equal(res.json().full_sync.departures, 5);
    assert.deepEqual(await departed(ctx(), tenant), []);
    const held = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/full-syncs?status=held`);
    const id = held.json().items[0].id;
    const confirmed = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/full-syncs/${id}/confirm`,
      {},
    );
    assert.equal(confirmed.json().departed, 5);
    assert.deepEqual(await departed(ctx(), tenant), ['L10', 'L6', 'L7', 'L8', 'L9']);
  });

  test('final_page needs sync_id; sync_id must be a non-empty string', async () => {
    const tenant = await seedTenant(ctx());
    const noId = await push(ctx(), tenant, { students: [], final_page: true });
    assert.equal(noId.statusCode, 400);
    assert.equal(noId.json().field, 'final_page');
    const empty = await push(ctx(), tenant, { students: [], sync_id: '' });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().error, 'invalid_field');
  });

  test('every push is a run; the response carries its id', async () => {
    const tenant = await seedTenant(ctx());
    const dry = await push(ctx(), tenant, { students: [...range(1, 2), { email: 'x' }], dry_run: true });
    const real = await push(ctx(), tenant, { students: range(1, 2) });
    const runs = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?kind=roster`);
    assert.deepEqual(
      runs.json().items.map((r: { id: string }) => r.id),
      [real.json().run_id, dry.json().run_id],
    );
    const dryRun = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${dry.json().run_id}`)
    ).json();
    assert.equal(dryRun.dry_run, true);
    assert.equal(dryRun.received, 3);
    assert.equal(dryRun.error_count, 1);
    assert.equal(dryRun.counts.would_create, 2);
    assert.equal(dryRun.cohort_id, tenant.cohortId);
    const realRun = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${real.json().run_id}`)
    ).json();
    assert.equal(realRun.counts.created, 2);
    assert.equal(realRun.credential, 'institution_secret');
  });

  test('a help-sync secret never authenticates the roster feed', async () => {
    const tenant = await seedTenant(ctx());
    const issued = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-sync-secret`);
    assert.equal(issued.statusCode, 201, issued.body);
    const res = await ctx().request({
      method: 'POST',
      url: '/api/sis/sync',
      token: issued.json().secret,
      body: { cohort_id: tenant.cohortId, students: [] },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'unauthorized');
  });
});
