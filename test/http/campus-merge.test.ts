import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from '../helpers/app.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { pushEnrolments } from '../helpers/roster.ts';

async function seedCampus(ctx: TestContext, institutionId: string, name: string): Promise<string> {
  const { rows } = await ctx.db.query<{ id: string }>(
    'INSERT INTO campuses (institution_id, name) VALUES ($1, $2) RETURNING id',
    [institutionId, name],
  );
  await ctx.db.query(
    "INSERT INTO audience_tags (institution_id, kind, source_id, label) VALUES ($1, 'campus', $2, $3)",
    [institutionId, rows[0].id, name],
  );
  return rows[0].id;
}

async function seedStudent(
  ctx: TestContext,
  tenant: { institutionId: string; cohortId: string },
  n: number,
  campusId: string,
) {
  await ctx.db.query(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, campus_id)
     VALUES ($1, $2, $3, $4, $5)`,
    [tenant.institutionId, tenant.cohortId, `s${n}@example.edu`, `S${n}`, campusId],
  );
}

describeEachDatabase('campus merge', (ctx) => {
  test('moves students, keeps the old name as an alias, removes the tag and audits the merge', async () => {
    const tenant = await seedTenant(ctx());
    const original = await seedCampus(ctx(), tenant.institutionId, 'North Campus');
    const renamed = await seedCampus(ctx(), tenant.institutionId, 'Northern Campus');
    await seedStudent(ctx(), tenant, 1, original);
    await seedStudent(ctx(), tenant, 2, renamed);
    await seedStudent(ctx(), tenant, 3, renamed);

    const res = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/campuses/merge`, {
      from: 'northern campus',
      into: original,
      actor: 'Ops Olivia',
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.merged.id, renamed);
    assert.equal(body.into.id, original);
    assert.equal(body.moved.students, 2);
    assert.equal(body.alias, 'Northern Campus');

    const students = await ctx().db.query<{ campus_id: string }>(
      'SELECT DISTINCT campus_id FROM students WHERE institution_id = $1',
      [tenant.institutionId],
    );
    assert.deepEqual(
      students.rows.map((r) => r.campus_id),
      [original],
    );
    const campuses = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/campuses`);
    assert.deepEqual(
      campuses.json().items.map((c: { name: string }) => c.name),
      ['North Campus'],
    );
    const tags = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audience-tags`);
    assert.deepEqual(
      tags.json().items.map((t: { label: string }) => t.label),
      ['North Campus'],
    );
    const aliases = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/campus-aliases`);
    assert.deepEqual(aliases.json().items[0].alias, 'Northern Campus');
    assert.equal(aliases.json().items[0].campus_id, original);

    const audit = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/operator-audit`);
    assert.equal(audit.json().items[0].action, 'campus.merge');
    assert.equal(audit.json().items[0].actor, 'Ops Olivia');
    await assert.rejects(
      ctx().db.query("UPDATE operator_audit SET actor = 'someone else' WHERE institution_id = $1", [
        tenant.institutionId,
      ]),
      /append-only/,
    );
    await assert.rejects(
      ctx().db.query('DELETE FROM operator_audit WHERE institution_id = $1', [tenant.institutionId]),
      /append-only/,
    );

    // The alias names the survivor in later merges too.
    const third = await seedCampus(ctx(), tenant.institutionId, 'North Campus Annex');
    const again = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/campuses/merge`, {
      from: third,
      into: 'Northern Campus',
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().into.id, original);
  });

  test('rejects unknown campuses, self-merges and other institutions', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    const mine = await seedCampus(ctx(), tenant.institutionId, 'Main');
    const theirs = await seedCampus(ctx(), other.institutionId, 'Theirs');
    const url = `/admin/v1/institutions/${tenant.slug}/campuses/merge`;
    const unknown = await ctx().admin('POST', url, { from: 'Nowhere', into: mine });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().field, 'from');
    const self = await ctx().admin('POST', url, { from: 'main', into: mine });
    assert.equal(self.statusCode, 400);
    const foreign = await ctx().admin('POST', url, { from: theirs, into: mine });
    assert.equal(foreign.statusCode, 404);
    const stillThere = await ctx().db.query('SELECT 1 FROM campuses WHERE id = $1', [theirs]);
    assert.equal(stillThere.rowCount, 1);
  });

  test('a push that still uses the merged name matches the surviving campus; pushes are recorded as runs', async () => {
    const tenant = await seedTenant(ctx());
    const push = (body: Record<string, unknown>) => pushEnrolments(ctx(), tenant, { ...body });
    const first = await push({ campuses: [{ name: 'City' }, { name: 'City Centre' }] });
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.json().run_id, /^[0-9a-f-]{36}$/);
    const merged = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/campuses/merge`, {
      from: 'City Centre',
      into: 'City',
    });
    assert.equal(merged.statusCode, 200, merged.body);

    const again = await push({
      campuses: [{ name: 'city centre' }],
      units: [{ unit_code: 'U1', name: 'Unit one', campus_name: 'City Centre' }],
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().sections.campuses.created, 0);
    assert.equal(again.json().sections.campuses.unchanged, 1);
    assert.equal(again.json().sections.units.created, 1);
    const campuses = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/campuses`);
    assert.deepEqual(
      campuses.json().items.map((c: { name: string }) => c.name),
      ['City'],
    );
    const units = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/units`);
    assert.equal(units.json().items[0].campus_name, 'City');

    const runs = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?kind=enrolments`);
    assert.equal(runs.json().items.length, 2);
    const run = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${again.json().run_id}`);
    assert.deepEqual(run.json().sections, ['campuses', 'units']);
    assert.equal(run.json().credential, 'institution_secret');
    assert.equal(run.json().received, 2);
  });
});
