import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeEachDatabase, OPERATOR_TOKEN, seedTenant } from '../helpers/app.ts';

// The suites below share one app per database: none depends on another's data.
describeEachDatabase('HTTP API', (ctx) => {
  describe('admin API', () => {
    test('requires the operator token', async () => {
      const missing = await ctx().request({ method: 'GET', url: '/admin/v1/institutions' });
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.json().error, 'unauthorized');
      const wrong = await ctx().request({
        method: 'GET',
        url: '/admin/v1/institutions',
        token: `${OPERATOR_TOKEN}x`,
      });
      assert.equal(wrong.statusCode, 401);
    });

    test('creates and lists institutions and cohorts', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const one = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}`);
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().slug, tenant.slug);
      assert.match(one.json().created_at, /^\d{4}-\d\d-\d\dT/);

      const dup = await ctx().admin('POST', '/admin/v1/institutions', { slug: tenant.slug, name: 'Again' });
      assert.equal(dup.statusCode, 409);
      assert.equal(dup.json().error, 'conflict');

      const cohorts = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/cohorts`);
      assert.deepEqual(
        cohorts.json().items.map((c: { id: string }) => c.id),
        [tenant.cohortId],
      );
      const individual = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/cohorts`, {
        name: 'Rolling intake',
        clock: 'individual',
      });
      assert.equal(individual.statusCode, 201);
      assert.equal(individual.json().clock, 'individual');
    });

    test('rejects bad input with stable codes', async () => {
      const badSlug = await ctx().admin('POST', '/admin/v1/institutions', { slug: 'Not A Slug', name: 'x' });
      assert.equal(badSlug.statusCode, 400);
      assert.equal(badSlug.json().error, 'invalid_field');
      assert.equal(badSlug.json().field, 'slug');
      const missing = await ctx().admin('POST', '/admin/v1/institutions', { slug: 'ok-slug' });
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().error, 'missing_field');
      assert.equal(missing.json().field, 'name');
      const unknown = await ctx().admin('GET', '/admin/v1/institutions/no-such-one/cohorts');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error, 'institution_not_found');
      // The institution is resolved before the body is judged: an unknown one is 404 whatever the body.
      const badClockElsewhere = await ctx().admin('POST', '/admin/v1/institutions/no-such-one/cohorts', {
        name: 'x',
        clock: 'weekly',
      });
      assert.equal(badClockElsewhere.statusCode, 404);
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const badClock = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/cohorts`, {
        name: 'x',
        clock: 'weekly',
      });
      assert.equal(badClock.statusCode, 400);
      assert.equal(badClock.json().detail, 'clock must be one of "cohort", "individual"');
    });

    test('issues, replaces and revokes roster secrets; plaintext is never stored', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const base = `/admin/v1/institutions/${tenant.slug}/roster-secret`;
      assert.equal((await ctx().admin('GET', base)).json().state, 'not_configured');
      const first = (await ctx().admin('POST', base)).json().secret as string;
      assert.match(first, /^ssp_roster_[A-Za-z0-9_-]{43}$/);
      const second = (await ctx().admin('POST', base)).json().secret as string;
      assert.notEqual(first, second);
      const active = (await ctx().admin('GET', base)).json();
      assert.equal(active.state, 'active');
      assert.equal(Date.parse(active.rotate_by) - Date.parse(active.issued_at), 90 * 86_400_000);

      const stored = await ctx().db.query<{ secret_hash: string; revoked: boolean }>(
        'SELECT secret_hash, revoked_at IS NOT NULL AS revoked FROM roster_secrets WHERE institution_id = $1',
        [tenant.institutionId],
      );
      assert.equal(stored.rows.length, 2);
      assert.equal(stored.rows.filter((r) => !r.revoked).length, 1);
      for (const row of stored.rows) {
        assert.match(row.secret_hash, /^[0-9a-f]{64}$/);
        assert.ok(!row.secret_hash.includes(first) && !row.secret_hash.includes(second));
      }

      // A DELETE sent with the usual JSON header and no body works like one without.
      const revoked = await ctx().app.inject({
        method: 'DELETE',
        url: base,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      });
      assert.equal(revoked.statusCode, 204, revoked.body);
      assert.equal((await ctx().admin('GET', base)).json().state, 'revoked');
      assert.equal((await ctx().admin('DELETE', base)).statusCode, 404);
    });
  });

  describe('health and documentation', () => {
    test('liveness and readiness', async () => {
      assert.equal((await ctx().request({ method: 'GET', url: '/health/live' })).json().status, 'ok');
      const ready = await ctx().request({ method: 'GET', url: '/health/ready' });
      assert.equal(ready.statusCode, 200);
      assert.ok(ready.headers['x-request-id']);
    });

    test('serves the OpenAPI document and the reference page', async () => {
      const doc = await ctx().request({ method: 'GET', url: '/openapi.json' });
      assert.equal(doc.statusCode, 200);
      assert.ok(doc.json().paths['/admin/v1/institutions']);
      const page = await ctx().request({ method: 'GET', url: '/docs/' });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<html/i);
    });

    test('a malformed URL answers 400 in the error shape', async () => {
      const res = await ctx().request({ method: 'GET', url: '/admin/v1/institutions/%E0%A4%A' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_request');
    });

    test('unknown routes answer 404 in the error shape', async () => {
      const res = await ctx().request({ method: 'GET', url: '/nope' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'not_found');
    });
  });

  describe('request bodies', () => {
    test('a body that is not JSON is a clear 4xx on every endpoint', async () => {
      const tenant = await seedTenant(ctx());
      const post = (url: string, token: string, contentType: string, payload: string) =>
        ctx().app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
          payload,
        });
      const targets: [string, string][] = [
        ['/admin/v1/institutions', OPERATOR_TOKEN],
        ['/api/sis/sync', tenant.rosterSecret!],
        ['/api/sis/enrolments', tenant.rosterSecret!],
      ];
      for (const [url, token] of targets) {
        const plain = await post(url, token, 'text/plain', '{"slug":"x","name":"y"}');
        assert.equal(plain.statusCode, 415, `${url}: ${plain.body}`);
        assert.equal(plain.json().error, 'unsupported_media_type');
        const truncated = await post(url, token, 'application/json', '{"slug":"x","na');
        assert.equal(truncated.statusCode, 400, `${url}: ${truncated.body}`);
        assert.equal(truncated.json().error, 'malformed_json');
        const empty = await post(url, token, 'application/json', '');
        assert.equal(empty.statusCode, 400, `${url}: ${empty.body}`);
        assert.equal(empty.json().error, 'empty_body');
      }
    });
  });

  describe('prototype-polluting keys', () => {
    test('are dropped from bodies, never reach objects, and never fail a batch', async () => {
      const tenant = await seedTenant(ctx());
      const res = await ctx().app.inject({
        method: 'POST',
        url: '/api/sis/sync',
        headers: { authorization: `Bearer ${tenant.rosterSecret}`, 'content-type': 'application/json' },
        payload: `{"cohort_id":"${tenant.cohortId}","students":[{"email":"p@example.edu","student_id_ext":"P1","__proto__":{"admin":true}},{"constructor":{"prototype":{"x":1}}}]}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().imported, 1);
      assert.equal(res.json().errors.length, 1);
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });
  });
});
