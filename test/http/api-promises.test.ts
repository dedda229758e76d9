// The API's promises to clients written against it: an unknown query parameter is refused rather
// than ignored (`offset` points to `cursor`), a creating POST retried with its Idempotency-Key
// creates once and replays its first answer, and every feed answer says where its rate limit stands.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, OPERATOR_TOKEN, seedTenant, startTestApp } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { personBrowser, studentBrowser } from '../helpers/people.ts';
import { pushEnrolments, pushRoster } from '../helpers/roster.ts';

// The suites below share one app per database: every test that writes does so in an institution
// of its own.
describeEachDatabase('API promises', (ctx) => {
  describe('unknown query parameters', () => {
    test('offset on a listing is refused and points to cursor; any unknown parameter is named', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const offset = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/students?offset=100`);
      assert.equal(offset.statusCode, 400);
      assert.equal(offset.json().error, 'unknown_parameter');
      assert.equal(offset.json().field, 'offset');
      assert.match(offset.json().detail, /cursor/);

      const typo = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/students?programme=x`);
      assert.equal(typo.statusCode, 400);
      assert.equal(typo.json().field, 'programme');

      // Parameters of an intersected schema (paging plus filters) are all known.
      const known = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/help-requests?limit=5&status=new&order=crisis_first`,
      );
      assert.equal(known.statusCode, 200);
    });

    test('a feed takes no query parameter: dry_run belongs in the body, and saying so beats a real write', async () => {
      const tenant = await seedTenant(ctx());
      const feed = await ctx().request({
        method: 'POST',
        url: '/api/sis/sync?dry_run=true',
        token: tenant.rosterSecret,
        body: { cohort_id: tenant.cohortId, students: [{ email: 'q@example.edu', student_id_ext: 'q1' }] },
      });
      assert.equal(feed.statusCode, 400);
      assert.equal(feed.json().field, 'dry_run');
      const { rows } = await ctx().db.query(
        'SELECT count(*)::int AS n FROM students WHERE institution_id = $1',
        [tenant.institutionId],
      );
      assert.equal(rows[0].n, 0);
      // Without a secret, the feed's own answer comes first.
      const anonymous = await ctx().request({
        method: 'POST',
        url: '/api/sis/sync?dry_run=true',
        body: { cohort_id: tenant.cohortId, students: [] },
      });
      assert.equal(anonymous.statusCode, 401);
    });

    test('a caller who may not use the route learns nothing about its parameters', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const anonymous = await ctx().request({
        method: 'GET',
        url: `/admin/v1/institutions/${tenant.slug}/students?offset=1`,
      });
      assert.equal(anonymous.statusCode, 401);
    });

    test('property: any unknown parameter name is a 400 naming it, never a 5xx', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const known = new Set(['limit', 'cursor', 'q', 'cohort_id', 'program_code', 'campus_id', 'departed']);
      await fc.assert(
        fc.asyncProperty(
          fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !known.has(name)),
          async (name) => {
            const url = `/admin/v1/institutions/${tenant.slug}/students?${new URLSearchParams({ [name]: '1' })}`;
            const response = await ctx().admin('GET', url);
            assert.ok(response.statusCode < 500, `${response.statusCode} for ${JSON.stringify(name)}`);
            if (response.statusCode === 400 && response.json().error === 'unknown_parameter') {
              assert.equal(response.json().field, name);
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });

  describe('Idempotency-Key', () => {
    const create = (key: string | undefined, body: unknown) =>
      ctx().request({
        method: 'POST',
        url: '/admin/v1/institutions',
        token: OPERATOR_TOKEN,
        body,
        headers: key === undefined ? {} : { 'idempotency-key': key },
      });

    test('a retry with the same key replays the first answer and creates nothing more', async () => {
      const key = randomUUID();
      const slug = `idem-${randomUUID().slice(0, 8)}`;
      const first = await create(key, { slug, name: `Idem ${slug}` });
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await create(key, { slug, name: `Idem ${slug}` });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      const { rows } = await ctx().db.query('SELECT count(*)::int AS n FROM institutions WHERE slug = $1', [
        slug,
      ]);
      assert.equal(rows[0].n, 1);
      // Without a key the same body is a second request: the slug is taken.
      const plain = await create(undefined, { slug, name: `Idem ${slug}` });
      assert.equal(plain.statusCode, 409);
    });

    test('the same key with another body is 422; a malformed key is 400; a refused request stores nothing', async () => {
      const key = randomUUID();
      const slug = `idem-${randomUUID().slice(0, 8)}`;
      assert.equal((await create(key, { slug, name: 'One' })).statusCode, 201);
      const other = await create(key, { slug, name: 'Two' });
      assert.equal(other.statusCode, 422);
      assert.equal(other.json().error, 'idempotency_key_reused');
      const bad = await create('has spaces in it', { slug: `x${slug}`, name: 'x' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error, 'invalid_idempotency_key');
      // Invalid input is refused before the key is claimed: the corrected request may use it.
      const fresh = randomUUID();
      assert.equal((await create(fresh, { slug: 'Not A Slug', name: 'x' })).statusCode, 400);
      assert.equal((await create(fresh, { slug: `y${slug}`, name: 'Fixed' })).statusCode, 201);
      // A refusal from the handler itself (the slug is taken) stores nothing either.
      const again = randomUUID();
      assert.equal((await create(again, { slug, name: 'Taken' })).statusCode, 409);
      assert.equal((await create(again, { slug: `z${slug}`, name: 'Free' })).statusCode, 201);
    });

    test('a key whose first request is still running is 409', async () => {
      const slug = `idem-${randomUUID().slice(0, 8)}`;
      const key = randomUUID();
      // The first request's claim, as it stands while its handler runs.
      const { requestHash } = await import('../../src/domain/idempotency/keys.ts');
      await ctx().db.query(
        'INSERT INTO idempotency_keys (caller, key, request_hash, created_at) VALUES ($1, $2, $3, now())',
        [
          'operator',
          key,
          requestHash({
            method: 'POST',
            route: '/admin/v1/institutions',
            params: {},
            body: { slug, name: 'Running' },
          }),
        ],
      );
      const second = await create(key, { slug, name: 'Running' });
      assert.equal(second.statusCode, 409);
      assert.equal(second.json().error, 'idempotency_key_in_use');
    });

    test('keys are per caller, and a stored answer holding a secret is sealed at rest', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const key = randomUUID();
      const issue = (headers: Record<string, string>) =>
        ctx().app.inject({
          method: 'POST',
          url: `/admin/v1/institutions/${tenant.slug}/roster-secret`,
          headers: { ...headers, 'idempotency-key': key },
        });
      const first = await issue({ cookie: admin.cookie, 'x-csrf-token': admin.csrf });
      assert.equal(first.statusCode, 201);
      const replay = await issue({ cookie: admin.cookie, 'x-csrf-token': admin.csrf });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().secret, first.json().secret);
      // The operator's same key is another caller's: a new secret.
      const operator = await issue({ authorization: `Bearer ${OPERATOR_TOKEN}` });
      assert.equal(operator.statusCode, 201);
      assert.notEqual(operator.json().secret, first.json().secret);
      const { rows } = await ctx().db.query<{ response: string }>(
        'SELECT response FROM idempotency_keys WHERE key = $1',
        [key],
      );
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.ok(!row.response.includes(first.json().secret));
        assert.ok(!row.response.includes(operator.json().secret));
      }
    });

    test("the student pages' help form posted twice raises one request", async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: true });
      const student = await studentBrowser(ctx(), tenant);
      const form = await student.request('GET', '/app/requests/new');
      const key = /name="_idempotency_key" value="([^"]+)"/.exec(form.body)?.[1];
      assert.ok(key, 'the form carries an idempotency key');
      const post = () =>
        ctx().app.inject({
          method: 'POST',
          url: '/app/requests',
          headers: { cookie: student.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            _csrf: student.csrf,
            _idempotency_key: key,
            description: 'My laptop was stolen',
            category: 'other',
          }).toString(),
        });
      const first = await post();
      assert.equal(first.statusCode, 303);
      const second = await post();
      assert.equal(second.statusCode, 303);
      assert.equal(second.headers.location, first.headers.location);
      const { rows } = await ctx().db.query(
        "SELECT count(*)::int AS n FROM help_requests WHERE summary = 'My laptop was stolen'",
      );
      assert.equal(rows[0].n, 1);
    });
  });
});

for (const kind of databaseKinds()) {
  test(`[${kind}] every feed answer carries RateLimit-Policy and RateLimit; 429 keeps Retry-After`, async () => {
    const ctx = await startTestApp(kind, { config: { rosterRateLimitPerMinute: 2 } });
    try {
      const tenant = await seedTenant(ctx);
      const push = () => pushRoster(ctx, tenant, { students: [], dry_run: true });
      const first = await push();
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['ratelimit-policy'], 'roster;q=2;w=60');
      assert.match(String(first.headers.ratelimit), /^roster;r=1;t=\d+$/);
      const second = await push();
      assert.match(String(second.headers.ratelimit), /^roster;r=0;t=\d+$/);
      const third = await push();
      assert.equal(third.statusCode, 429);
      assert.match(String(third.headers['retry-after']), /^\d+$/);
      assert.equal(third.headers['ratelimit-policy'], 'roster;q=2;w=60');
      assert.match(String(third.headers.ratelimit), /^roster;r=0;t=\d+$/);
      const enrolments = await pushEnrolments(ctx, tenant, { dry_run: true });
      assert.match(String(enrolments.headers['ratelimit-policy']), /^enrolments;q=\d+;w=60$/);
    } finally {
      await ctx.close();
    }
  });
}

describeEachDatabase('Idempotency-Key expiry', (ctx) => {
  test('keys older than 24 hours are deleted in bounded batches', async () => {
    const { expireKeys } = await import('../../src/domain/idempotency/keys.ts');
    const caller = `person:${randomUUID()}`;
    await ctx().db.query(
      `INSERT INTO idempotency_keys (caller, key, request_hash, status, response, created_at)
       SELECT $1, 'k' || g, 'h', 201, 'x', now() - interval '25 hours' FROM generate_series(1, 5) g
       UNION ALL SELECT $1, 'fresh', 'h', 201, 'x', now()`,
      [caller],
    );
    const clock = { now: () => new Date() };
    assert.equal(await expireKeys({ db: ctx().db, clock }, 3), 3);
    assert.equal(await expireKeys({ db: ctx().db, clock }), 2);
    const { rows } = await ctx().db.query('SELECT key FROM idempotency_keys WHERE caller = $1', [caller]);
    assert.deepEqual(rows, [{ key: 'fresh' }]);
  });
});
