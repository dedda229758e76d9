// The privacy pages of the console, on each database: a student's page offers the export and the
// erasure to admins; the export page and download; the erasure's confirmation, refusal without
// the tick, and the erasure itself (nothing of the student left); "seen by" on a request and the
// audit's views; the retention settings with inline errors; the health page's retention card.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runRetention } from '../../src/domain/privacy/retention.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser, postForm } from '../helpers/people.ts';
import { pushRoster } from '../helpers/roster.ts';
import { leftovers } from './leftovers.ts';
import { tenantWithStudentEverywhere } from './seed.ts';

describeEachDatabase(
  'privacy: console',
  (ctx) => {
    test('export, seen by, the audit views, and an erasure after its confirmation', async () => {
      const { tenant, s } = await tenantWithStudentEverywhere(ctx());
      const base = `/console/${tenant.slug}`;
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Kai Lee' });
      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Ola Staff' });

      const page = await admin.request('GET', `${base}/students/${s.id}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Export everything held/);
      assert.doesNotMatch(
        (await staff.request('GET', `${base}/students/${s.id}`)).body,
        /Erase this student/,
      );

      const exported = await admin.request('GET', `${base}/students/${s.id}/export`);
      assert.equal(exported.statusCode, 200);
      assert.match(exported.body, /cannot cope/);
      const download = await admin.request('GET', `${base}/students/${s.id}/export.json`);
      assert.equal(download.json().student.email, s.email);
      assert.equal((await staff.request('GET', `${base}/students/${s.id}/export`)).statusCode, 403);

      // Opening the request: the staff member, then the admin, are listed as having seen it.
      await staff.request('GET', `${base}/inbox/${s.requestIds[0]}`);
      const request = await admin.request('GET', `${base}/inbox/${s.requestIds[0]}`);
      assert.equal(request.statusCode, 200);
      const seen = /<ul id="seen-by">([\s\S]*?)<\/ul>/.exec(request.body)?.[1] ?? '';
      assert.match(seen, /Kai Lee/);
      assert.match(seen, /Ola Staff/);
      const views = await admin.request('GET', `${base}/audit/views`);
      assert.match(views.body, /a student’s export/);
      assert.match(views.body, /a help request/);

      const confirm = await admin.request('GET', `${base}/students/${s.id}/erase`);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /cannot be undone/);
      assert.match(confirm.body, /the words of 1 help request/);
      const unticked = await postForm(ctx(), admin, `${base}/erasures`, { student_id: s.id });
      assert.equal(unticked.statusCode, 400);
      assert.match(unticked.body, /Tick the box/);
      const noCsrf = await postForm(
        ctx(),
        admin,
        `${base}/erasures`,
        { student_id: s.id, confirmed: 'yes' },
        false,
      );
      assert.equal(noCsrf.statusCode, 403);
      const byStaff = await postForm(ctx(), staff, `${base}/erasures`, {
        student_id: s.id,
        confirmed: 'yes',
      });
      assert.equal(byStaff.statusCode, 403);
      const erased = await postForm(ctx(), admin, `${base}/erasures`, { student_id: s.id, confirmed: 'yes' });
      assert.equal(erased.statusCode, 303);
      assert.match(String(erased.headers.location), /done=student_erased/);
      assert.deepEqual(await leftovers(ctx().db, [s.email, s.ext, s.firstName, s.lastName], s.id), []);
      // The request stays, seen-by and all; the student page is gone.
      const erasedRequest = await admin.request('GET', `${base}/inbox/${s.requestIds[0]}`);
      assert.equal(erasedRequest.statusCode, 200);
      // Said as what happened: erased, not "deleted".
      assert.match(erasedRequest.body, /The student was erased since this request was raised/);
      assert.match(erasedRequest.body, /Help request \(its words erased\)/);
      assert.doesNotMatch(erasedRequest.body, /deleted/i);
      const inbox = await admin.request('GET', `${base}/inbox?status=all`);
      if (inbox.body.includes(s.requestIds[0])) {
        assert.match(inbox.body, /Student erased/);
        assert.doesNotMatch(inbox.body, /record deleted/i);
      }
      assert.equal((await admin.request('GET', `${base}/students/${s.id}`)).statusCode, 404);
      const privacy = await admin.request('GET', `${base}/privacy`);
      assert.match(privacy.body, /Kai Lee/);
    });

    test('retention periods: inline errors, saved values, and the health page says what a run removed', async () => {
      const tenant = await seedTenant(ctx());
      const base = `/console/${tenant.slug}`;
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      assert.equal((await admin.request('GET', `${base}/privacy`)).statusCode, 200);
      const low = await postForm(ctx(), admin, `${base}/privacy`, { run_errors_days: '3' });
      assert.equal(low.statusCode, 400);
      assert.match(low.body, /Enter a whole number of days from 7 to 730/);
      const words = await postForm(ctx(), admin, `${base}/privacy`, { notifications_days: 'soon' });
      assert.equal(words.statusCode, 400);
      assert.match(words.body, /whole number of days/);
      const saved = await postForm(ctx(), admin, `${base}/privacy`, { run_errors_days: '7' });
      assert.equal(saved.statusCode, 303);
      const api = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/retention`);
      assert.equal(api.json().run_errors_days.days, 7);
      assert.equal(api.json().notifications_days.set, false);

      // A push with row errors, ten days old, is past a seven-day period.
      await pushRoster(ctx(), tenant, { students: [{ email: 'nope' }] });
      await ctx().db.query(
        `UPDATE sis_runs SET started_at = now() - interval '10 days' WHERE institution_id = $1`,
        [tenant.institutionId],
      );
      const removed = await runRetention(ctx().deps, tenant.institutionId, {
        batch: 10,
        maxBatches: 5,
        pauseMs: 0,
      });
      assert.deepEqual(removed, { run_errors: 1 });
      const health = await admin.request('GET', `${base}/`);
      assert.match(health.body, /removed 1 pushes cleared of row errors/);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
