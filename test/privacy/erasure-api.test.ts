// Export and erasure through the admin API, on each database: the export holds what the service
// has about the student; after the erasure no stored value of theirs is left anywhere (every
// text, JSON and uuid column of every table searched), the request still counts, the audit says
// who erased a student, receivers are told, and erasing again is harmless.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';
import { pushRoster } from '../helpers/roster.ts';
import { leftovers } from './leftovers.ts';
import { seedStudentEverywhere, tenantWithStudentEverywhere } from './seed.ts';

describeEachDatabase(
  'privacy: export and erasure (API)',
  (ctx) => {
    test('the export holds the student, their request with its conversation and events, and the reads', async () => {
      const { tenant, s } = await tenantWithStudentEverywhere(ctx());
      const base = `/admin/v1/institutions/${tenant.slug}`;
      assert.equal((await ctx().admin('GET', `${base}/help-requests/${s.requestIds[0]}`)).statusCode, 200);
      const res = await ctx().admin('POST', `${base}/student-exports`, { email: s.email.toUpperCase() });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /application\/json/);
      const doc = res.json();
      assert.equal(doc.format, 'ssp-student-export/1');
      assert.equal(doc.student.email, s.email);
      assert.equal(doc.student.student_id_ext, s.ext);
      assert.equal(doc.help_requests.length, 1);
      const request = doc.help_requests[0];
      assert.match(request.summary, /cannot cope/);
      assert.ok(request.timeline.some((t: { note: string | null }) => t.note?.includes(s.ext)));
      assert.ok(request.events.length >= 2);
      assert.ok(doc.reads.some((r: { what: string }) => r.what === 'help_request'));
      assert.ok(doc.push_history.length >= 1, 'row errors naming the student');
      assert.equal(doc.sessions.length, 1);
      // By SIS id too; an unknown student is 404; nothing named is 404; an unknown field is 400.
      const byExt = await ctx().admin('POST', `${base}/student-exports`, { student_id_ext: s.ext });
      assert.equal(byExt.json().student.id, s.id);
      assert.equal(
        (await ctx().admin('POST', `${base}/student-exports`, { email: 'nobody@example.edu' })).json().error,
        'student_not_found',
      );
      assert.equal((await ctx().admin('POST', `${base}/student-exports`, {})).statusCode, 404);
      assert.equal((await ctx().admin('POST', `${base}/student-exports`, { name: 'x' })).statusCode, 400);
      // The export itself is recorded: who, what, never the content.
      const log = (await ctx().admin('GET', `${base}/access-log`)).json().items;
      assert.ok(
        log.some((e: { what: string; student_id: string }) => e.what === 'export' && e.student_id === s.id),
      );
    });

    test('an erasure leaves no stored value of the student, keeps the request counted, and is idempotent', async () => {
      const { tenant, s } = await tenantWithStudentEverywhere(ctx());
      const base = `/admin/v1/institutions/${tenant.slug}`;
      await ctx().admin('GET', `${base}/help-requests/${s.requestIds[0]}`);
      // Found before, in the places the seed wrote.
      const needles = [s.email, s.ext, s.firstName, s.lastName];
      const before = await leftovers(ctx().db, needles, s.id);
      for (const place of [
        'students.email',
        'help_requests.summary',
        'help_request_timeline.note',
        'sis_runs.errors',
        'webhook_attempts.response_body',
        'oneroster_sources.known',
        'admin_audit.target',
      ]) {
        assert.ok(
          before.some((f) => `${f.table}.${f.column}` === place),
          `seeded ${place}`,
        );
      }

      const preview = await ctx().admin('GET', `${base}/students/${s.id}/erasure`);
      assert.equal(preview.statusCode, 200);
      assert.equal(preview.json().removes.help_requests, 1);

      const erased = await ctx().admin('POST', `${base}/erasures`, { student_id: s.id });
      assert.equal(erased.statusCode, 200, erased.body);
      assert.equal(erased.json().already_erased, false);
      assert.deepEqual(erased.json().help_request_ids, s.requestIds);

      assert.deepEqual(await leftovers(ctx().db, needles, s.id), []);

      // The request stays, without its words, still counted.
      const request = await ctx().admin('GET', `${base}/help-requests/${s.requestIds[0]}`);
      assert.equal(request.statusCode, 200);
      assert.equal(request.json().priority, 'crisis');
      assert.equal(request.json().summary ?? null, null);
      const { rows } = await ctx().db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM help_requests WHERE institution_id = $1 AND erased_at IS NOT NULL`,
        [tenant.institutionId],
      );
      assert.equal(rows[0].n, 1);
      // Receivers are told; the audit says who erased, not whom.
      const { rows: events } = await ctx().db.query<{ payload: { data: { help_request_ids: string[] } } }>(
        `SELECT payload FROM events WHERE institution_id = $1 AND type = 'student.erased'`,
        [tenant.institutionId],
      );
      assert.deepEqual(events[0].payload.data.help_request_ids, s.requestIds);
      const audit = (await ctx().admin('GET', `${base}/audit`)).json().items;
      assert.ok(
        audit.some(
          (a: { action: string; actor: string }) => a.action.endsWith('/erasures') && a.actor === 'operator',
        ),
      );

      // Again: the same erasure, already done; an id never seen: 404.
      const again = await ctx().admin('POST', `${base}/erasures`, { student_id: s.id });
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().already_erased, true);
      assert.equal(again.json().erasure_id, erased.json().erasure_id);
      const unknown = await ctx().admin('POST', `${base}/erasures`, {
        student_id: '00000000-0000-4000-8000-000000000000',
      });
      assert.equal(unknown.json().error, 'student_not_found');
      assert.equal((await ctx().admin('POST', `${base}/erasures`, { student_id: 'x' })).statusCode, 404);
      // Pushed again, the student is a new student with nothing of the old one.
      const push = await pushRoster(ctx(), tenant, { students: [{ email: s.email, student_id_ext: s.ext }] });
      assert.equal(push.json().created, 1);
    });

    test('only admins of the institution erase or export; another institution is 404; CSRF applies', async () => {
      const tenant = await seedTenant(ctx());
      const other = await seedTenant(ctx());
      const s = await seedStudentEverywhere(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}`;
      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      assert.equal((await staff.request('POST', `${base}/erasures`, { student_id: s.id })).statusCode, 403);
      assert.equal(
        (await staff.request('POST', `${base}/student-exports`, { student_id: s.id })).statusCode,
        403,
      );
      const stranger = await personBrowser(ctx(), other, { roles: ['admin'] });
      assert.equal(
        (await stranger.request('POST', `${base}/erasures`, { student_id: s.id })).statusCode,
        404,
      );
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const noCsrf = await admin.request('POST', `${base}/erasures`, { student_id: s.id }, { csrf: false });
      assert.equal(noCsrf.statusCode, 403);
      // An admin of another institution naming this student in their own: not found.
      const cross = await stranger.request('POST', `/admin/v1/institutions/${other.slug}/erasures`, {
        student_id: s.id,
      });
      assert.equal(cross.json().error, 'student_not_found');
      const ok = await admin.request('POST', `${base}/erasures`, { student_id: s.id });
      assert.equal(ok.statusCode, 200);
    });

    test('an archived institution still exports (a read) but refuses an erasure until restored', async () => {
      const { tenant, s } = await tenantWithStudentEverywhere(ctx());
      const base = `/admin/v1/institutions/${tenant.slug}`;
      assert.equal((await ctx().admin('POST', `${base}/archive`)).statusCode, 200);
      const exported = await ctx().admin('POST', `${base}/student-exports`, { student_id: s.id });
      assert.equal(exported.statusCode, 200, exported.body);
      const erased = await ctx().admin('POST', `${base}/erasures`, { student_id: s.id });
      assert.equal(erased.statusCode, 409);
      assert.equal(erased.json().error, 'institution_archived');
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
