// Retention through the worker, on each database: what has passed its period goes (a departed
// student erased in full, a resolved request's words, webhook attempt bodies, finished
// notifications, old access-log entries, push row errors), what has not stays, and the run is
// recorded. Settings through the admin API: defaults, floors and ceilings, refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRetentionWorker } from '../../src/workers/retention.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';
import { seedStudentEverywhere } from './seed.ts';

describeEachDatabase(
  'privacy: retention',
  (ctx) => {
    test('the worker erases what passed its period, keeps the rest, and records the run', async () => {
      const tenant = await seedTenant(ctx());
      const base = `/admin/v1/institutions/${tenant.slug}`;
      const old = await seedStudentEverywhere(ctx(), tenant);
      const departed = await seedStudentEverywhere(ctx(), tenant);
      const recent = await seedStudentEverywhere(ctx(), tenant);
      const q = (sql: string, params: unknown[] = []) => ctx().db.query(sql, params);
      // The old student's request was resolved 800 days ago; the departed one left 400 days ago.
      const resolved = await ctx().admin('POST', `${base}/help-requests/${old.requestIds[0]}/status`, {
        status: 'resolved',
        staff: 'Dana Staff',
      });
      assert.equal(resolved.statusCode, 200, resolved.body);
      await q(`UPDATE help_requests SET resolved_at = now() - interval '800 days' WHERE id = $1`, [
        old.requestIds[0],
      ]);
      await q(`UPDATE students SET departed_at = now() - interval '400 days' WHERE id = $1`, [departed.id]);
      await q(
        `UPDATE webhook_attempts SET attempted_at = now() - interval '40 days' WHERE institution_id = $1`,
        [tenant.institutionId],
      );
      await ctx().admin('GET', `${base}/help-requests/${recent.requestIds[0]}`);
      await ctx().admin('GET', `${base}/help-requests/${old.requestIds[0]}`);
      await q(
        `UPDATE access_log SET at = now() - interval '1000 days' WHERE institution_id = $1 AND help_request_id = $2`,
        [tenant.institutionId, old.requestIds[0]],
      );

      // A sent notification about the recent request, 100 days old (past the 90-day default).
      const person = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      await q(
        `INSERT INTO notifications (institution_id, person_id, help_request_id, reason, state, created_at, finished_at)
         VALUES ($1, $2, $3, 'new', 'sent', now() - interval '100 days', now() - interval '100 days'),
                ($1, $2, $3, 'new', 'sent', now(), now())`,
        [tenant.institutionId, person.personId, recent.requestIds[0]],
      );

      const worker = createRetentionWorker({
        db: ctx().db,
        clock: ctx().deps.clock,
        retention: { pauseMs: 0 },
      });
      await worker.runOnce();

      const request = (
        await q(`SELECT summary, erased_at FROM help_requests WHERE id = $1`, [old.requestIds[0]])
      ).rows[0];
      assert.equal(request.summary, null);
      assert.ok(request.erased_at);
      const kept = (await q(`SELECT summary FROM help_requests WHERE id = $1`, [recent.requestIds[0]]))
        .rows[0];
      assert.match(String(kept.summary), /cannot cope/);
      const notes = await q(
        `SELECT count(*)::int AS n FROM help_request_timeline WHERE help_request_id = $1 AND note IS NOT NULL`,
        [old.requestIds[0]],
      );
      assert.equal(notes.rows[0].n, 0);
      assert.equal((await ctx().admin('GET', `${base}/students/${departed.id}`)).statusCode, 404);
      const erasure = await q(`SELECT reason, erased_by FROM student_erasures WHERE institution_id = $1`, [
        tenant.institutionId,
      ]);
      assert.deepEqual(erasure.rows, [{ reason: 'retention', erased_by: 'retention' }]);
      const bodies = await q(
        `SELECT count(*)::int AS n FROM webhook_attempts WHERE institution_id = $1 AND response_body IS NOT NULL`,
        [tenant.institutionId],
      );
      assert.equal(bodies.rows[0].n, 0);
      const log = (await ctx().admin('GET', `${base}/access-log`)).json().items;
      assert.ok(log.some((e: { help_request_id: string }) => e.help_request_id === recent.requestIds[0]));
      assert.ok(
        !log.some(
          (e: { help_request_id: string }) => e.help_request_id === old.requestIds[0] && e.help_request_id,
        ),
      );
      const run = await q(`SELECT removed FROM retention_runs WHERE institution_id = $1`, [
        tenant.institutionId,
      ]);
      const removed = run.rows[0].removed as Record<string, number>;
      assert.equal(removed.resolved_requests, 1);
      assert.equal(removed.departed_students, 1);
      assert.ok(removed.webhook_bodies >= 1);
      assert.equal(removed.access_log, 1);
      assert.equal(removed.notifications, 1);
      const left = await q(`SELECT count(*)::int AS n FROM notifications WHERE help_request_id = $1`, [
        recent.requestIds[0],
      ]);
      assert.equal(left.rows[0].n, 1);
      // A second run finds nothing more and records nothing.
      await worker.runOnce();
      const runs = await q(`SELECT count(*)::int AS n FROM retention_runs WHERE institution_id = $1`, [
        tenant.institutionId,
      ]);
      assert.equal(runs.rows[0].n, 1);
    });

    test('retention settings: defaults, a change, back to the default, refusals', async () => {
      const tenant = await seedTenant(ctx());
      const path = `/admin/v1/institutions/${tenant.slug}/retention`;
      const initial = (await ctx().admin('GET', path)).json();
      assert.deepEqual(initial.resolved_requests_days, {
        days: 730,
        set: false,
        default: 730,
        min: 30,
        max: 3650,
        what: initial.resolved_requests_days.what,
      });
      const changed = await ctx().admin('PATCH', path, { resolved_requests_days: 60, notifications_days: 7 });
      assert.equal(changed.statusCode, 200);
      assert.equal(changed.json().resolved_requests_days.days, 60);
      assert.equal(changed.json().run_errors_days.set, false);
      const back = await ctx().admin('PATCH', path, { resolved_requests_days: null });
      assert.equal(back.json().resolved_requests_days.days, 730);
      assert.equal(back.json().notifications_days.days, 7);
      const low = await ctx().admin('PATCH', path, { access_log_days: 10 });
      assert.equal(low.statusCode, 400);
      assert.deepEqual(
        [low.json().error, low.json().field, low.json().min],
        ['invalid_field', 'access_log_days', 180],
      );
      assert.equal((await ctx().admin('PATCH', path, { forever_days: 10 })).statusCode, 400);
      assert.equal((await ctx().admin('PATCH', path, { run_errors_days: 'ten' })).statusCode, 400);
      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      assert.equal((await staff.request('PATCH', path, { run_errors_days: 30 })).statusCode, 403);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
