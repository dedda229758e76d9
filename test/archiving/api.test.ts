// Archiving through the admin API (docs/archiving.md): an institution (the operator only) or a
// cohort (its admins) is archived and restored, idempotently and audited, nothing deleted; an
// archived institution refuses every feed (roster, enrolments, help-sync) and every admin write
// with 409 institution_archived while it can still be read; an archived cohort refuses roster
// pushes with 409 cohort_archived while its students stay; listings hide archived ones unless
// asked; its students are told the service is not available.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type SeededTenant, type TestContext } from '../helpers/app.ts';
import { seedHelpdesk } from '../helpers/helpdesk.ts';
import { personBrowser, studentBrowser } from '../helpers/people.ts';
import { pushEnrolments } from '../helpers/roster.ts';

const rosterPush = (ctx: TestContext, tenant: SeededTenant, cohortId = tenant.cohortId) =>
  ctx.request({
    method: 'POST',
    url: '/api/sis/sync',
    token: tenant.rosterSecret,
    body: { cohort_id: cohortId, students: [{ email: 'ada@example.edu', student_id_ext: 'S1' }] },
  });

const enrolmentsPush = (ctx: TestContext, tenant: SeededTenant) =>
  pushEnrolments(ctx, tenant, { programs: [{ program_code: 'BSCI', name: 'Science' }] });

const helpSync = (ctx: TestContext, tenant: SeededTenant & { syncSecret: string }) =>
  ctx.request({
    method: 'POST',
    url: '/api/integrations/help-sync',
    token: tenant.syncSecret,
    body: {
      institution: tenant.slug,
      actor: 'Zendesk',
      updates: [{ help_request_id: '5f0c6a8e-2b1d-4c3e-9a7f-1d2e3f4a5b6c', action: 'acknowledge' }],
    },
  });

describeEachDatabase('archiving', (ctx) => {
  test('the operator archives an institution: idempotent, audited, listed only when asked, restored', async () => {
    const tenant = await seedHelpdesk(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const first = await ctx().admin('POST', `${base}/archive`);
    assert.equal(first.statusCode, 200, first.body);
    const archivedAt = first.json().archived_at;
    assert.match(archivedAt, /^\d{4}-\d\d-\d\dT/);
    const again = await ctx().admin('POST', `${base}/archive`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().archived_at, archivedAt, 'archiving again keeps the first date');
    assert.equal((await ctx().admin('GET', base)).json().archived_at, archivedAt, 'still readable');

    const listed = async (query: string) => {
      const slugs: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await ctx().admin(
          'GET',
          `/admin/v1/institutions?limit=1000${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(res.statusCode, 200, res.body);
        slugs.push(...res.json().items.map((i: { slug: string }) => i.slug));
        cursor = res.json().next_cursor;
      } while (cursor);
      return slugs.includes(tenant.slug);
    };
    assert.equal(await listed(''), false, 'hidden by default');
    assert.equal(await listed('&archived=false'), false);
    assert.equal(await listed('&archived=true'), true);
    assert.equal(await listed('&archived=any'), true);
    const unknown = await ctx().admin('GET', '/admin/v1/institutions?archived=yes');
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error, 'invalid_field');

    const restored = await ctx().admin('POST', `${base}/restore`);
    assert.equal(restored.statusCode, 200);
    assert.equal(restored.json().archived_at, null);
    assert.equal((await ctx().admin('POST', `${base}/restore`)).json().archived_at, null, 'idempotent');
    assert.equal(await listed(''), true);

    const audit = await ctx().admin('GET', `${base}/audit`);
    const actions = audit.json().items.map((e: { action: string }) => e.action);
    assert.equal(actions.filter((a: string) => a.endsWith('/archive')).length, 2);
    assert.equal(actions.filter((a: string) => a.endsWith('/restore')).length, 2);
    assert.ok(actions.includes('POST /admin/v1/institutions/:slug/archive'));
  });

  test('an archived institution refuses every feed and every write with 409 institution_archived; reads go on', async () => {
    const tenant = await seedHelpdesk(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    assert.equal((await rosterPush(ctx(), tenant)).statusCode, 200);
    assert.equal((await ctx().admin('POST', `${base}/archive`)).statusCode, 200);

    const refusals = {
      roster: await rosterPush(ctx(), tenant),
      enrolments: await enrolmentsPush(ctx(), tenant),
      helpSync: await helpSync(ctx(), tenant),
      rename: await ctx().admin('PATCH', base, { name: 'Renamed' }),
      cohort: await ctx().admin('POST', `${base}/cohorts`, { name: 'Another' }),
      cohortArchive: await ctx().admin('POST', `${base}/cohorts/${tenant.cohortId}/archive`),
      secret: await ctx().admin('POST', `${base}/roster-secret`),
    };
    for (const [name, res] of Object.entries(refusals)) {
      assert.equal(res.statusCode, 409, `${name}: ${res.body}`);
      assert.equal(res.json().error, 'institution_archived', name);
      assert.match(res.json().detail, /archived on \d{4}-\d\d-\d\d by the operator/, name);
    }
    // Reading goes on: the institution, its students (the roster pushed before), its cohorts.
    assert.equal((await ctx().admin('GET', base)).statusCode, 200);
    const students = await ctx().admin('GET', `${base}/students`);
    assert.equal(students.json().items.length, 4, 'the seeded students and the pushed one stay');
    assert.equal((await ctx().admin('GET', `${base}/cohorts`)).statusCode, 200);
    assert.equal((await admin.request('GET', base)).statusCode, 200, 'its admins can read');
    const refused = await admin.request('PATCH', base, { name: 'Mine' });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error, 'institution_archived');

    assert.equal((await ctx().admin('POST', `${base}/restore`)).statusCode, 200);
    assert.equal((await rosterPush(ctx(), tenant)).statusCode, 200, 'restored: pushes accepted again');
    assert.equal((await enrolmentsPush(ctx(), tenant)).statusCode, 200);
    assert.equal((await helpSync(ctx(), tenant)).statusCode, 200);
  });

  test("a feed caller of another institution is not told it is archived; a student sees 'not available'", async () => {
    const tenant = await seedHelpdesk(ctx());
    const other = await seedHelpdesk(ctx());
    const student = await studentBrowser(ctx(), tenant);
    assert.equal((await student.request('GET', '/app/')).statusCode, 200);
    await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/archive`);
    const foreign = await rosterPush(ctx(), { ...tenant, rosterSecret: other.rosterSecret });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'cohort_not_found');
    const page = await student.request('GET', '/app/');
    assert.equal(page.statusCode, 409);
    assert.match(page.body, /This service is not available/);
    assert.match(page.body, /institution_archived/);
    assert.doesNotMatch(page.body, /archived on/, 'students are not told why');
  });

  test('only the operator archives an institution; staff cannot archive a cohort; another institution’s cohort is 404', async () => {
    const tenant = await seedHelpdesk(ctx());
    const other = await seedHelpdesk(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    for (const action of ['archive', 'restore']) {
      const byAdmin = await admin.request('POST', `${base}/${action}`);
      assert.equal(byAdmin.statusCode, 403, byAdmin.body);
      assert.equal(byAdmin.json().error, 'forbidden');
      const byStaff = await staff.request('POST', `${base}/cohorts/${tenant.cohortId}/${action}`);
      assert.equal(byStaff.statusCode, 403);
    }
    const foreign = await admin.request('POST', `${base}/cohorts/${other.cohortId}/archive`);
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'cohort_not_found');
    const otherInstitution = await admin.request(
      'POST',
      `/admin/v1/institutions/${other.slug}/cohorts/${other.cohortId}/archive`,
    );
    assert.equal(otherInstitution.statusCode, 404);
    assert.equal(otherInstitution.json().error, 'institution_not_found');
    const { rows } = await ctx().db.query('SELECT 1 FROM cohorts WHERE id = $1 AND archived_at IS NOT NULL', [
      other.cohortId,
    ]);
    assert.equal(rows.length, 0, 'nothing was archived');
  });

  test('an admin archives a cohort: pushes naming it are 409 cohort_archived, its students stay, lists hide it unless asked', async () => {
    const tenant = await seedHelpdesk(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const cohortUrl = `${base}/cohorts/${tenant.cohortId}`;
    const archived = await admin.request('POST', `${cohortUrl}/archive`);
    assert.equal(archived.statusCode, 200, archived.body);
    const at = archived.json().archived_at;
    assert.ok(at);
    assert.equal((await admin.request('POST', `${cohortUrl}/archive`)).json().archived_at, at, 'idempotent');

    const push = await rosterPush(ctx(), tenant);
    assert.equal(push.statusCode, 409);
    assert.deepEqual([push.json().error, push.json().field], ['cohort_archived', 'cohort_id']);
    assert.match(push.json().detail, /archived on \d{4}-\d\d-\d\d/);

    const students = await ctx().admin('GET', `${base}/students?cohort_id=${tenant.cohortId}`);
    assert.equal(students.json().items.length, 3, 'its students stay and are listed');
    const ids = async (query = '') =>
      (await ctx().admin('GET', `${base}/cohorts${query}`)).json().items.map((c: { id: string }) => c.id);
    assert.deepEqual(await ids(), []);
    assert.deepEqual(await ids('?archived=true'), [tenant.cohortId]);
    assert.deepEqual(await ids('?archived=any'), [tenant.cohortId]);
    assert.equal((await ctx().admin('GET', `${base}/cohorts?archived=maybe`)).statusCode, 400);
    assert.equal((await ctx().admin('GET', cohortUrl)).json().archived_at, at);

    // Another cohort of the same institution still takes pushes.
    const second = await ctx().admin('POST', `${base}/cohorts`, { name: 'Cohort B' });
    assert.equal((await rosterPush(ctx(), tenant, second.json().id)).statusCode, 200);

    const restored = await admin.request('POST', `${cohortUrl}/restore`);
    assert.equal(restored.statusCode, 200);
    assert.equal(restored.json().archived_at, null);
    assert.equal((await rosterPush(ctx(), tenant)).statusCode, 200, 'restored: pushes accepted');
    assert.deepEqual(await ids(), [tenant.cohortId, second.json().id]);
  });
});
