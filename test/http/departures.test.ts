// Full-sync departures at the service level; the roster endpoint drives the same functions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  namedKeys,
  previewFullSyncPage,
  recordFullSyncPage,
} from '../../src/domain/departures/departures.ts';
import type { SeededTenant, TestContext } from '../helpers/app.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { insertStudents } from '../helpers/students.ts';

/** `count` students student1@example.edu / S1 ... */
function seedStudents(ctx: TestContext, tenant: SeededTenant, count: number) {
  return insertStudents(
    ctx.db,
    tenant,
    Array.from({ length: count }, (_, i) => ({
      email: `student${i + 1}@example.edu`,
      student_id_ext: `S${i + 1}`,
    })),
  );
}

const rows = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    email: `Student${from + i}@example.edu`,
    student_id_ext: `S${from + i}`,
  }));

async function page(
  ctx: TestContext,
  tenant: SeededTenant,
  syncId: string,
  pageRows: unknown[],
  finalPage: boolean,
  threshold = 0.1,
) {
  return ctx.db.transaction((tx) =>
    recordFullSyncPage(
      tx,
      {
        institutionId: tenant.institutionId,
        cohortId: tenant.cohortId,
        syncId,
        finalPage,
        keys: namedKeys(pageRows),
        now: new Date(),
      },
      threshold,
    ),
  );
}

async function departed(ctx: TestContext, tenant: SeededTenant): Promise<string[]> {
  const { rows: found } = await ctx.db.query<{ student_id_ext: string }>(
    'SELECT student_id_ext FROM students WHERE institution_id = $1 AND departed_at IS NOT NULL ORDER BY student_id_ext',
    [tenant.institutionId],
  );
  return found.map((r) => r.student_id_ext);
}

test('namedKeys takes keys from every row that has them, valid or not', () => {
  assert.deepEqual(
    namedKeys([
      { email: ' A@x.EDU ', student_id_ext: 'A1' },
      null,
      'x',
      { student_id_ext: 7 },
      { email: '' },
    ]),
    {
      emails: ['a@x.edu'],
      externalIds: ['A1'],
    },
  );
});

describeEachDatabase('full-sync departures', (ctx) => {
  test('students no page named depart on the final page; a retried final page changes nothing', async () => {
    const tenant = await seedTenant(ctx());
    await seedStudents(ctx(), tenant, 20);
    const first = await page(ctx(), tenant, 'nightly-1', rows(1, 10), false);
    assert.equal(first.status, 'open');
    assert.equal(first.pages, 1);
    // Row 19 failed validation upstream (no student_id_ext) but still names a student by email.
    const final = await page(
      ctx(),
      tenant,
      'nightly-1',
      [...rows(11, 18), { email: 'student19@example.edu' }],
      true,
    );
    assert.equal(final.status, 'applied');
    assert.equal(final.departures, 1);
    assert.equal(final.cohort_size, 20);
    assert.deepEqual(await departed(ctx(), tenant), ['S20']);

    const retried = await page(ctx(), tenant, 'nightly-1', rows(11, 18), true);
    assert.equal(retried.status, 'applied');
    assert.equal(retried.pages, 2);
    assert.deepEqual(await departed(ctx(), tenant), ['S20']);
  });

  test('departures over the threshold are held until an admin confirms or discards them', async () => {
    const tenant = await seedTenant(ctx());
    await seedStudents(ctx(), tenant, 10);
    const preview = await previewFullSyncPage(
      ctx().db,
      {
        institutionId: tenant.institutionId,
        cohortId: tenant.cohortId,
        syncId: 'big',
        finalPage: true,
        keys: namedKeys(rows(1, 5)),
        now: new Date(),
      },
      0.1,
    );
    assert.deepEqual(preview, {
      sync_id: 'big',
      final_page: true,
      would_depart: 5,
      cohort_size: 10,
      would_hold: true,
      threshold: 0.1,
    });

    const held = await page(ctx(), tenant, 'big', rows(1, 5), true);
    assert.equal(held.status, 'held');
    assert.equal(held.departures, 5);
    assert.deepEqual(await departed(ctx(), tenant), []);

    const list = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/full-syncs?status=held`);
    const id = list.json().items[0].id;
    const detail = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/full-syncs/${id}`);
    assert.equal(detail.json().departing_students.length, 5);

    // A student pushed again after the sync is not departed by the confirmation.
    await ctx().db.query(
      "UPDATE students SET updated_at = now() + interval '1 minute' WHERE institution_id = $1 AND student_id_ext = 'S6'",
      [tenant.institutionId],
    );
    const confirmed = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/full-syncs/${id}/confirm`,
      { actor: 'Registrar' },
    );
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(confirmed.json().departed, 4);
    assert.deepEqual(await departed(ctx(), tenant), ['S10', 'S7', 'S8', 'S9']);
    const again = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/full-syncs/${id}/discard`,
      {},
    );
    assert.equal(again.statusCode, 409);

    const departedList = await ctx().admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?status=departed`,
    );
    assert.equal(departedList.json().items.length, 4);
  });

  test('discarding held departures departs nobody; other institutions cannot see the sync', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    await seedStudents(ctx(), tenant, 4);
    await page(ctx(), tenant, 'x', rows(1, 1), true, 0.5);
    const id = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/full-syncs`)).json().items[0]
      .id;
    const foreign = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${other.slug}/full-syncs/${id}/discard`,
    );
    assert.equal(foreign.statusCode, 404);
    const discarded = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/full-syncs/${id}/discard`,
    );
    assert.equal(discarded.statusCode, 200, discarded.body);
    assert.equal(discarded.json().status, 'discarded');
    assert.deepEqual(await departed(ctx(), tenant), []);
  });
});
