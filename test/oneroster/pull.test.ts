// The service pulling an institution's OneRoster 1.2 REST source, against a real provider over
// HTTP: configuration (secret sealed, never shown; the URL guard), full and delta pulls through
// the feeds' domain paths, paging, token expiry, rate limiting and 5xx, a failing provider
// changing nothing, row errors naming the sourcedId, departures of a full pull, the schedule.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type PullDeps, pullDepsOf, pullNow } from '../../src/domain/oneroster/pull/pull.ts';
import { listFailingSources } from '../../src/domain/oneroster/pull/sources.ts';
import { createOneRosterPullWorker } from '../../src/workers/oneroster-pull.ts';
import { describeEachDatabase, OPERATOR_TOKEN, seedTenant, type TestContext } from '../helpers/app.ts';
import { configureSource, generateRoster, providerPool, touch } from '../helpers/oneroster-provider.ts';
import { listed, studentIdsOf } from '../helpers/roster.ts';
import { scaled } from '../helpers/time-limit.ts';

describeEachDatabase(
  'OneRoster pulls',
  (context) => {
    let ctx: TestContext;
    let deps: PullDeps;
    const startProvider = providerPool();
    const waits: number[] = [];
    before(() => {
      ctx = context();
      const pull = pullDepsOf(ctx.deps);
      deps = {
        ...pull,
        limits: { ...pull.limits, pageSize: 5 },
        sleep: async (ms) => {
          waits.push(ms);
        },
        random: () => 0.5,
      };
    });
    const provider = async (students: number, maxLimit = 1000) => {
      const p = await startProvider({ data: generateRoster({ students }), maxLimit });
      return p;
    };
    const list = (slug: string, what: string) => listed(ctx, slug, what);
    /** Sync now as the console and new clients ask for it: queued for the worker. */
    const syncNowAsync = (slug: string, body: { mode?: string } = {}) =>
      ctx.request({
        method: 'POST',
        url: `/admin/v1/institutions/${slug}/oneroster-source/pulls`,
        body,
        token: OPERATOR_TOKEN,
        headers: { prefer: 'respond-async' },
      });

    test('configure: the secret is sealed and never shown; the URL guard refuses private addresses', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(1);
      const put = await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId, org_ids: [] });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(put.json().client_secret_set, true);
      assert.ok(!put.body.includes(p.clientSecret));
      const { rows } = await ctx.db.query<{ client_secret_encrypted: string }>(
        'SELECT client_secret_encrypted FROM oneroster_sources WHERE institution_id = $1',
        [tenant.institutionId],
      );
      assert.match(rows[0].client_secret_encrypted, /^enc:v1:/);
      const got = await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/oneroster-source`);
      assert.ok(!got.body.includes(p.clientSecret));
      const refused = await configureSource(ctx, tenant.slug, p, {
        cohort_id: tenant.cohortId,
        base_url: 'https://169.254.169.254/ims/oneroster/rostering/v1p2',
      });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().error, 'url_not_allowed');
      assert.equal(refused.json().field, 'base_url');
    });

    test('Sync now: 202 queued for the worker (woken at once), then a full pull with paging; one run with trigger pull', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(12, 5);
      assert.equal(
        (await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId })).statusCode,
        200,
      );
      // The worker as `ssp serve` runs it: started, sleeping between polls; Sync now wakes it
      // (through the process's pullRequested signal).
      const worker = createOneRosterPullWorker({
        deps: pullDepsOf(ctx.deps),
        logger: { info() {}, error() {} },
        institutionIds: [tenant.institutionId],
      });
      worker.start();
      // Its first round (at start) has found nothing: it sleeps for 15 s now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      try {
        const r = await syncNowAsync(tenant.slug, { mode: 'full' });
        assert.equal(r.statusCode, 202, r.body);
        assert.equal(r.headers['preference-applied'], 'respond-async');
        const asked = r.json();
        assert.equal(asked.status, 'queued');
        assert.equal(asked.mode, 'full');
        assert.deepEqual(
          [asked.sections, asked.error_count, asked.notes],
          [{}, 0, []],
          'the old fields, empty',
        );
        const location = String(r.headers.location);
        assert.equal(
          location,
          `/admin/v1/institutions/${tenant.slug}/oneroster-source/pulls/${asked.run_id}`,
        );
        const again = await ctx.admin(
          'POST',
          `/admin/v1/institutions/${tenant.slug}/oneroster-source/pulls`,
          {
            mode: 'delta',
          },
        );
        assert.equal(again.statusCode, 409);
        assert.equal(again.json().error, 'pull_in_progress');
        // Picked up at once, well within the worker's 15 s poll interval; then finished (a
        // loaded machine may take longer to finish than the interval, so that wait scales).
        const started = Date.now();
        let outcome = (await ctx.admin('GET', location)).json();
        while (outcome.status === 'queued' && Date.now() - started < 10_000) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          outcome = (await ctx.admin('GET', location)).json();
        }
        assert.notEqual(outcome.status, 'queued', 'picked up within 10 s');
        while (outcome.status === 'running' && Date.now() - started < scaled(10_000)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          outcome = (await ctx.admin('GET', location)).json();
        }
        assert.equal(outcome.status, 'ok', JSON.stringify(outcome));
        assert.equal(outcome.run_id, asked.run_id);
        assert.equal(outcome.mode, 'full');
        assert.equal(outcome.sections.roster.created, 12);
      } finally {
        await worker.stop();
      }
      const students = await list(tenant.slug, 'students');
      assert.equal(students.length, 12, 'students only, not the teacher');
      assert.equal(
        students.find((s: { email: string }) => s.email === 'student0@nbu.example.edu').student_id_ext,
        'S0',
      );
      assert.equal((await list(tenant.slug, 'enrolments')).length, 12);
      assert.deepEqual(
        (await list(tenant.slug, 'programs')).map((x: { program_code: string }) => x.program_code),
        ['BN'],
      );
      // Paging: users read 5 at a time until X-Total-Count (13 users: 3 pages).
      assert.equal(p.requests.filter((q) => q.path.endsWith('/users')).length, 3);
      const runs = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?kind=oneroster`)
      ).json().items;
      assert.equal(runs.length, 1, 'one run for the pull, none for its pages');
      assert.equal(runs[0].trigger, 'pull');
      assert.equal(runs[0].credential, 'oneroster_source');
      assert.equal(runs[0].counts.status, 'ok');
      assert.equal((await list(tenant.slug, 'runs')).length, 1);
      const source = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/oneroster-source`)
      ).json();
      assert.equal(source.requested_pull, null, 'the request ended with the pull');
      assert.equal(
        (await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/oneroster-source/pulls/${runs[0].id}`))
          .statusCode,
        200,
      );
    });

    test('Sync now without Prefer: respond-async answers as v1 first documented it: 200 with the outcome of the pull it ran', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(4);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId });
      const r = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/oneroster-source/pulls`, {
        mode: 'full',
      });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.headers['preference-applied'], undefined);
      const outcome = r.json();
      assert.equal(outcome.status, 'ok');
      assert.equal(outcome.sections.roster.created, 4);
      assert.equal((await list(tenant.slug, 'students')).length, 4);
      // While one is queued for the worker, a pull in the request is refused, not run beside it.
      assert.equal((await syncNowAsync(tenant.slug, { mode: 'delta' })).statusCode, 202);
      const refused = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/oneroster-source/pulls`);
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().error, 'pull_in_progress');
    });

    test('Sync now without a worker running: queued until a worker claims it, with the mode chosen when asked', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(3);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId });
      const none = await ctx.admin('POST', '/admin/v1/institutions/nowhere/oneroster-source/pulls', {});
      assert.equal(none.statusCode, 404);
      // A delta before any good pull is full.
      const r = await syncNowAsync(tenant.slug, { mode: 'delta' });
      assert.equal(r.statusCode, 202, r.body);
      assert.equal(r.json().mode, 'full');
      const location = String(r.headers.location);
      assert.equal((await ctx.admin('GET', location)).json().status, 'queued');
      const source = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/oneroster-source`)
      ).json();
      assert.equal(source.requested_pull.run_id, r.json().run_id);
      const worker = createOneRosterPullWorker({ deps, institutionIds: [tenant.institutionId] });
      assert.deepEqual(await worker.runOnce(), { claimed: 1, ok: 1, failed: 0 });
      const done = (await ctx.admin('GET', location)).json();
      assert.equal(done.status, 'ok');
      const run = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${done.run_id}`)
      ).json();
      assert.equal(run.trigger, 'pull');
      assert.equal(run.details.schedule, 'manual');
      assert.deepEqual(await worker.runOnce(), { claimed: 0, ok: 0, failed: 0 }, 'asked for once');
      const unknown = await ctx.admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/oneroster-source/pulls/00000000-0000-4000-8000-000000000000`,
      );
      assert.equal(unknown.statusCode, 404);
    });

    test('faults: 429 waits Retry-After, 5xx backs off, an expired token is renewed once', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(6, 5);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId });
      await pullNow(deps, tenant.institutionId, 'full');
      p.expireTokens();
      p.rateLimit(1, 7);
      waits.length = 0;
      const first = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(first.status, 'ok', first.error ?? '');
      assert.ok(waits.includes(7000), `waited the Retry-After: ${waits}`);
      p.fail(2, 503);
      waits.length = 0;
      const second = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(second.status, 'ok', second.error ?? '');
      assert.equal(waits.length, 2, 'two backoffs');
      assert.ok(second.notes.some((n) => /HTTP 503/.test(n)));
      const tokenRequests = p.requests.filter((q) => q.path === '/oauth/token').length;
      assert.ok(tokenRequests >= 3);
    });

    test('a provider that fails keeps the stored data as it was; the source shows as failing', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(4);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId });
      assert.equal((await pullNow(deps, tenant.institutionId, 'full')).status, 'ok');
      touch(p.data.users[1], { givenName: 'Changed' });
      p.down('enrollments', 500);
      const failed = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(failed.status, 'failed');
      assert.match(failed.error ?? '', /enrollments .*HTTP 500/);
      const students = await list(tenant.slug, 'students');
      assert.ok(
        students.every((s: { first_name: string }) => s.first_name !== 'Changed'),
        'users read before the failure are not applied',
      );
      const failing = await listFailingSources(ctx.db, tenant.institutionId);
      assert.equal(failing.length, 1);
      assert.match(failing[0].last_error ?? '', /HTTP 500/);
      p.down(null);
      assert.equal((await pullNow(deps, tenant.institutionId, 'full')).status, 'ok');
      assert.equal((await listFailingSources(ctx.db, tenant.institutionId)).length, 0);
      // A wrong secret: the token request fails, named so.
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId, client_secret: 'wrong' });
      const refused = await pullNow(deps, tenant.institutionId, 'full');
      assert.match(refused.error ?? '', /token request failed: HTTP 401.*client id and secret/);
    });

    test('delta pulls ask for what changed; a full pull departs who the provider no longer lists', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(20);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId });
      assert.equal((await pullNow(deps, tenant.institutionId, 'full')).status, 'ok');
      const later = new Date(Date.now() + 1000);
      touch(p.data.users[2], { givenName: 'Renamed' }, later);
      touch(p.data.enrollments[3], { status: 'tobedeleted' }, later);
      p.data.enrollments.push({
        sourcedId: 'e-new',
        status: 'active',
        dateLastModified: later.toISOString(),
        role: 'student',
        user: { sourcedId: 'u-4' },
        class: { sourcedId: 'cl-102-a' },
      });
      const delta = await pullNow(deps, tenant.institutionId, 'delta');
      assert.equal(delta.status, 'ok', delta.error ?? '');
      assert.equal(delta.mode, 'delta');
      const filtered = p.requests.filter((q) => q.query.filter);
      assert.ok(
        filtered.length >= 6 && filtered.every((q) => q.query.filter.startsWith("dateLastModified>'")),
      );
      const students = await list(tenant.slug, 'students');
      assert.equal(
        students.find((s: { student_id_ext: string }) => s.student_id_ext === 'S1').first_name,
        'Renamed',
      );
      const enrolments = await list(tenant.slug, 'enrolments');
      assert.equal(enrolments.length, 21);
      assert.equal(enrolments.filter((e: { status: string }) => e.status === 'withdrawn').length, 1);

      // A full pull without student 7 and a student without email: one departure, one finding.
      p.data.users.splice(8, 1);
      touch(p.data.users[4], { email: '' });
      const full = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(full.status, 'ok', full.error ?? '');
      const departed = (await list(tenant.slug, 'students')).filter(
        (s: { departed_at: string | null }) => s.departed_at,
      );
      assert.deepEqual(
        departed.map((s: { student_id_ext: string }) => s.student_id_ext),
        ['S7'],
      );
      const run = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${full.run_id}`)
      ).json();
      assert.equal(run.errors.length, 1);
      assert.equal(run.errors[0].code, 'no_email');
      assert.equal(run.errors[0].collection, 'users');
      assert.equal(run.errors[0].sourcedId, 'u-3');
    });

    test("orgs to take: only the chosen orgs' students and classes", async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(10);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId, org_ids: ['org-river'] });
      const outcome = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(outcome.status, 'ok', outcome.error ?? '');
      const students = await list(tenant.slug, 'students');
      assert.deepEqual(studentIdsOf(students), ['S1', 'S3', 'S5', 'S7', 'S9'], 'the Riverside students only');
      assert.equal((await list(tenant.slug, 'enrolments')).length, 0, 'their classes are at City Campus');
    });

    test('the schedule: the worker pulls a due source', async () => {
      const tenant = await seedTenant(ctx);
      const p = await provider(3);
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId, pull_every_minutes: 60 });
      const worker = createOneRosterPullWorker({ deps, institutionIds: [tenant.institutionId] });
      const first = await worker.runOnce();
      assert.deepEqual(first, { claimed: 1, ok: 1, failed: 0 });
      assert.equal((await list(tenant.slug, 'students')).length, 3);
      assert.deepEqual(await worker.runOnce(), { claimed: 0, ok: 0, failed: 0 }, 'not due again for an hour');
      const source = (
        await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/oneroster-source`)
      ).json();
      assert.ok(Date.parse(source.next_pull_at) > Date.now() + 50 * 60_000);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
