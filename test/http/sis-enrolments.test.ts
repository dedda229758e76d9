import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';

const BOOTSTRAP = 'ssp_bootstrap_test-secret-for-enrolments';
const url = '/api/sis/enrolments';

function pusher(ctx: () => TestContext) {
  return (tenant: SeededTenant, body: Record<string, unknown>, token = tenant.rosterSecret) =>
    ctx().request({ method: 'POST', url, token, body: { institution: tenant.slug, ...body } });
}

async function tags(ctx: TestContext, tenant: SeededTenant) {
  const { rows } = await ctx.db.query<{ kind: string; label: string; source_id: string }>(
    'SELECT kind, label, source_id FROM audience_tags WHERE institution_id = $1 ORDER BY kind, label',
    [tenant.institutionId],
  );
  return rows;
}

async function programs(ctx: TestContext, tenant: SeededTenant) {
  const { rows } = await ctx.db.query<Record<string, unknown>>(
    `SELECT id, code, name, coordinator_name, coordinator_title FROM programs
     WHERE institution_id = $1 ORDER BY lower(code)`,
    [tenant.institutionId],
  );
  return rows;
}

async function campuses(ctx: TestContext, tenant: SeededTenant) {
  const { rows } = await ctx.db.query<{ id: string; name: string }>(
    'SELECT id, name FROM campuses WHERE institution_id = $1 ORDER BY lower(name)',
    [tenant.institutionId],
  );
  return rows;
}

describeEachDatabase(
  'POST /api/sis/enrolments: authentication',
  (ctx) => {
    const push = pusher(ctx);

    test('missing or wrong secret is 401 unauthorized', async () => {
      const tenant = await seedTenant(ctx());
      const missing = await ctx().request({ method: 'POST', url, body: { institution: tenant.slug } });
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.json().error, 'unauthorized');
      const wrong = await push(tenant, { programs: [] }, `${tenant.rosterSecret}x`);
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.json().error, 'unauthorized');
    });

    test("a valid slug with another institution's secret is 401 and writes nothing", async () => {
      const a = await seedTenant(ctx());
      const b = await seedTenant(ctx());
      const res = await push(b, { programs: [{ program_code: 'X' }] }, a.rosterSecret);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error, 'unauthorized');
      assert.equal((await programs(ctx(), b)).length, 0);
      assert.equal((await programs(ctx(), a)).length, 0);
    });

    test('an unknown slug is 401 for an institution secret, 404 for the bootstrap secret', async () => {
      const tenant = await seedTenant(ctx());
      const asInstitution = await ctx().request({
        method: 'POST',
        url,
        token: tenant.rosterSecret,
        body: { institution: 'no-such-institution' },
      });
      assert.equal(asInstitution.statusCode, 401);
      assert.equal(asInstitution.json().error, 'unauthorized');
      for (const slug of ['no-such-institution', 'Not A Slug!']) {
        const asBootstrap = await ctx().request({
          method: 'POST',
          url,
          token: BOOTSTRAP,
          body: { institution: slug },
        });
        assert.equal(asBootstrap.statusCode, 404);
        assert.equal(asBootstrap.json().error, 'institution_not_found');
      }
    });

    test('the bootstrap secret reaches only institutions never issued a secret; revoked means closed', async () => {
      const fresh = await seedTenant(ctx(), { rosterSecret: false });
      const ok = await push(fresh, { programs: [{ program_code: 'P1' }] }, BOOTSTRAP);
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.json().sections.programs.created, 1);

      const issued = await seedTenant(ctx());
      const refused = await push(issued, { programs: [] }, BOOTSTRAP);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error, 'unauthorized');

      assert.equal(
        (await ctx().admin('DELETE', `/admin/v1/institutions/${issued.slug}/roster-secret`)).statusCode,
        204,
      );
      assert.equal((await push(issued, { programs: [] })).statusCode, 401);
      assert.equal((await push(issued, { programs: [] }, BOOTSTRAP)).statusCode, 401);
    });

    test('authentication comes before body checks', async () => {
      const res = await ctx().request({
        method: 'POST',
        url,
        token: 'nope-not-a-secret',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 401);
    });
  },
  { env: { BOOTSTRAP_ROSTER_SECRET: BOOTSTRAP } },
);

describeEachDatabase('POST /api/sis/enrolments: not configured', (ctx) => {
  test('with no bootstrap secret and no institution secret anywhere, the feed is 503 not_configured', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const res = await ctx().request({
      method: 'POST',
      url,
      token: 'anything',
      body: { institution: tenant.slug },
    });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error, 'not_configured');
  });
});

// The suites below share one app per database: every test that writes does so in an institution
// of its own.
describeEachDatabase('POST /api/sis/enrolments', (ctx) => {
  const push = pusher(ctx);

  describe('programs', () => {
    test('creates programs with their audience tags, then re-push is unchanged', async () => {
      const tenant = await seedTenant(ctx());
      const rows = [
        {
          program_code: 'BSC-NURS',
          name: 'Nursing',
          coordinator_name: 'Ada Moss',
          coordinator_title: 'Coordinator',
        },
        { program_code: 'BA-HIST' },
      ];
      const first = await push(tenant, { programs: rows });
      assert.equal(first.statusCode, 200);
      const { run_id: firstRun, ...firstBody } = first.json();
      assert.match(firstRun, /^[0-9a-f-]{36}$/);
      assert.deepEqual(firstBody, {
        institution: tenant.slug,
        dry_run: false,
        sections: { programs: { received: 2, created: 2, updated: 0, unchanged: 0, rejected: 0 } },
        errors: [],
      });
      const stored = await programs(ctx(), tenant);
      assert.deepEqual(
        stored.map((p) => [p.code, p.name, p.coordinator_name, p.coordinator_title]),
        [
          ['BA-HIST', null, null, null],
          ['BSC-NURS', 'Nursing', 'Ada Moss', 'Coordinator'],
        ],
      );
      const tagRows = await tags(ctx(), tenant);
      assert.deepEqual(
        tagRows.map((t) => [t.kind, t.label]),
        [
          ['program', 'BA-HIST'],
          ['program', 'Nursing'],
        ],
      );
      assert.deepEqual(tagRows.map((t) => t.source_id).sort(), stored.map((p) => p.id).sort());

      const again = await push(tenant, { programs: rows });
      assert.deepEqual(again.json().sections.programs, {
        received: 2,
        created: 0,
        updated: 0,
        unchanged: 2,
        rejected: 0,
      });
      assert.equal((await tags(ctx(), tenant)).length, 2);
    });

    test('program_code matches case-insensitively; an omitted name is kept, not replaced by the code', async () => {
      const tenant = await seedTenant(ctx());
      await push(tenant, {
        programs: [{ program_code: 'ENG', name: 'Engineering', coordinator_name: 'Bo' }],
      });
      const res = await push(tenant, { programs: [{ program_code: 'eng' }] });
      assert.deepEqual(res.json().sections.programs, {
        received: 1,
        created: 0,
        updated: 1,
        unchanged: 0,
        rejected: 0,
      });
      const [stored] = await programs(ctx(), tenant);
      assert.equal(stored.code, 'eng', 'the latest spelling of the code is kept');
      assert.equal(stored.name, 'Engineering');
      assert.equal(stored.coordinator_name, 'Bo', 'an omitted coordinator is kept');
      // null and blank names keep the stored name too
      const blank = await push(tenant, {
        programs: [
          { program_code: 'eng', name: null },
          { program_code: 'ENG ', name: ' ' },
        ],
      });
      assert.equal(blank.json().sections.programs.unchanged, 1);
      assert.equal((await programs(ctx(), tenant))[0].name, 'Engineering');
      assert.equal((await programs(ctx(), tenant)).length, 1);
    });

    test('renaming a program updates it and its tag label; coordinator null clears', async () => {
      const tenant = await seedTenant(ctx());
      await push(tenant, {
        programs: [{ program_code: 'LAW', name: 'Law', coordinator_name: 'A', coordinator_title: 'B' }],
      });
      const res = await push(tenant, {
        programs: [
          { program_code: 'LAW', name: 'Laws (Honours)', coordinator_name: null, coordinator_title: '' },
        ],
      });
      assert.equal(res.json().sections.programs.updated, 1);
      const [stored] = await programs(ctx(), tenant);
      assert.deepEqual(
        [stored.name, stored.coordinator_name, stored.coordinator_title],
        ['Laws (Honours)', null, null],
      );
      assert.deepEqual(
        (await tags(ctx(), tenant)).map((t) => t.label),
        ['Laws (Honours)'],
      );
    });

    test('malformed rows of any shape are row errors; the good rows apply', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, {
        programs: [
          { program_code: 'OK1' },
          'not an object',
          null,
          42,
          [],
          {},
          { program_code: '   ' },
          { program_code: { nested: true } },
          { program_code: 'BAD-NAME', name: 7 },
          { program_code: 'NUL', name: 'a\u0000b' },
          { program_code: 'x'.repeat(101) },
          { program_code: 'LONG', coordinator_title: 'y'.repeat(201) },
          { program_code: 2024 },
          { program_code: 'OK2', extra_field: 'ignored' },
        ],
      });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(body.sections.programs, {
        received: 14,
        created: 3,
        updated: 0,
        unchanged: 0,
        rejected: 11,
      });
      assert.deepEqual(
        body.errors.map((e: { row: number; code: string; field?: string }) => [e.row, e.code, e.field]),
        [
          [1, 'invalid_row', undefined],
          [2, 'invalid_row', undefined],
          [3, 'invalid_row', undefined],
          [4, 'invalid_row', undefined],
          [5, 'missing_field', 'program_code'],
          [6, 'missing_field', 'program_code'],
          [7, 'invalid_field', 'program_code'],
          [8, 'invalid_field', 'name'],
          [9, 'invalid_field', 'name'],
          [10, 'invalid_field', 'program_code'],
          [11, 'invalid_field', 'coordinator_title'],
        ],
      );
      for (const error of body.errors) {
        assert.equal(error.section, 'programs');
        assert.equal(typeof error.message, 'string');
      }
      assert.deepEqual(
        (await programs(ctx(), tenant)).map((p) => p.code),
        ['2024', 'OK1', 'OK2'],
      );
    });

    test('a key repeated in one request: the first row applies, later ones are duplicate_key', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, {
        programs: [
          { program_code: 'DUP', name: 'First' },
          { program_code: 'other' },
          { program_code: 'dup', name: 'Second' },
          { program_code: 'Dup ', name: 'Third' },
        ],
      });
      const body = res.json();
      assert.deepEqual(body.sections.programs, {
        received: 4,
        created: 2,
        updated: 0,
        unchanged: 0,
        rejected: 2,
      });
      assert.deepEqual(
        body.errors.map((e: { row: number; code: string }) => [e.row, e.code]),
        [
          [2, 'duplicate_key'],
          [3, 'duplicate_key'],
        ],
      );
      assert.match(body.errors[0].message, /row 0/);
      const stored = await programs(ctx(), tenant);
      assert.deepEqual(
        stored.map((p) => [p.code, p.name]),
        [
          ['DUP', 'First'],
          ['other', null],
        ],
      );
    });

    test('413 batch_too_large over 1000 programs; 1000 are accepted', async () => {
      const tenant = await seedTenant(ctx());
      const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ program_code: `P${i}` }));
      const tooMany = await push(tenant, { programs: rows(1001) });
      assert.equal(tooMany.statusCode, 413);
      assert.equal(tooMany.json().error, 'batch_too_large');
      assert.equal(tooMany.json().max, 1000);
      assert.equal(tooMany.json().field, 'programs');
      assert.equal((await programs(ctx(), tenant)).length, 0);
      const full = await push(tenant, { programs: rows(1000) });
      assert.equal(full.statusCode, 200);
      assert.equal(full.json().sections.programs.created, 1000);
      assert.equal((await tags(ctx(), tenant)).length, 1000);
    });
  });

  describe('campuses', () => {
    test('campuses by name or campus_name, case-insensitively, each with its audience tag', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, { campuses: [{ name: 'City' }, { campus_name: 'Riverside' }] });
      assert.deepEqual(res.json().sections.campuses, {
        received: 2,
        created: 2,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
      assert.deepEqual(
        (await tags(ctx(), tenant)).map((t) => [t.kind, t.label]),
        [
          ['campus', 'City'],
          ['campus', 'Riverside'],
        ],
      );
      const again = await push(tenant, {
        campuses: [{ campus_name: 'City' }, { name: 'Riverside', campus_name: 'riverside' }],
      });
      assert.deepEqual(again.json().sections.campuses, {
        received: 2,
        created: 0,
        updated: 0,
        unchanged: 2,
        rejected: 0,
      });
      const respelled = await push(tenant, { campuses: [{ name: 'CITY' }] });
      assert.equal(respelled.json().sections.campuses.updated, 1);
      assert.deepEqual(
        (await campuses(ctx(), tenant)).map((c) => c.name),
        ['CITY', 'Riverside'],
      );
      assert.deepEqual(
        (await tags(ctx(), tenant)).map((t) => t.label),
        ['CITY', 'Riverside'],
      );
    });

    test('a campus renamed upstream becomes a second campus', async () => {
      const tenant = await seedTenant(ctx());
      await push(tenant, { campuses: [{ name: 'North' }] });
      const res = await push(tenant, { campuses: [{ name: 'North Campus' }] });
      assert.equal(res.json().sections.campuses.created, 1);
      assert.deepEqual(
        (await campuses(ctx(), tenant)).map((c) => c.name),
        ['North', 'North Campus'],
      );
      assert.equal((await tags(ctx(), tenant)).length, 2);
    });

    test('row errors: missing name, conflicting alias, wrong types, duplicates', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, {
        campuses: [
          {},
          { name: 'A', campus_name: 'B' },
          { name: 5.5 },
          { name: 'Good' },
          { campus_name: 'good' },
          'x',
        ],
      });
      const body = res.json();
      assert.deepEqual(body.sections.campuses, {
        received: 6,
        created: 1,
        updated: 0,
        unchanged: 0,
        rejected: 5,
      });
      assert.deepEqual(
        body.errors.map((e: { row: number; code: string }) => [e.row, e.code]),
        [
          [0, 'missing_field'],
          [1, 'conflicting_fields'],
          [2, 'invalid_field'],
          [4, 'duplicate_key'],
          [5, 'invalid_row'],
        ],
      );
    });

    test('413 over 200 campuses, with max and field', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, {
        campuses: Array.from({ length: 201 }, (_, i) => ({ name: `C${i}` })),
      });
      assert.equal(res.statusCode, 413);
      assert.deepEqual(
        [res.json().error, res.json().max, res.json().field],
        ['batch_too_large', 200, 'campuses'],
      );
      const ok = await push(tenant, { campuses: Array.from({ length: 200 }, (_, i) => ({ name: `C${i}` })) });
      assert.equal(ok.json().sections.campuses.created, 200);
    });
  });

  describe('dry run and envelope', () => {
    test('dry_run reports what would happen and writes nothing', async () => {
      const tenant = await seedTenant(ctx());
      await push(tenant, { programs: [{ program_code: 'KEEP', name: 'Keep' }], campuses: [{ name: 'Old' }] });
      const before = [
        await programs(ctx(), tenant),
        await campuses(ctx(), tenant),
        await tags(ctx(), tenant),
      ];
      const res = await push(tenant, {
        dry_run: true,
        programs: [
          { program_code: 'keep', name: 'Renamed' },
          { program_code: 'NEW' },
          { program_code: 'KEEP' },
          3,
        ],
        campuses: [{ name: 'old' }, { name: 'New' }],
      });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.dry_run, true);
      assert.deepEqual(body.sections.programs, {
        received: 4,
        created: 1,
        updated: 1,
        unchanged: 0,
        rejected: 2,
      });
      assert.deepEqual(body.sections.campuses, {
        received: 2,
        created: 1,
        updated: 1,
        unchanged: 0,
        rejected: 0,
      });
      assert.deepEqual(
        body.errors.map((e: { row: number; code: string }) => [e.row, e.code]),
        [
          [2, 'duplicate_key'],
          [3, 'invalid_row'],
        ],
      );
      assert.deepEqual(
        [await programs(ctx(), tenant), await campuses(ctx(), tenant), await tags(ctx(), tenant)],
        before,
      );
    });

    test('both sections in one request; an empty request is a valid no-op', async () => {
      const tenant = await seedTenant(ctx());
      const both = await push(tenant, { programs: [{ program_code: 'A' }], campuses: [{ name: 'B' }] });
      assert.equal(both.json().sections.programs.created, 1);
      assert.equal(both.json().sections.campuses.created, 1);
      const empty = await push(tenant, {});
      const { run_id: emptyRun, ...emptyBody } = empty.json();
      assert.match(emptyRun, /^[0-9a-f-]{36}$/);
      assert.deepEqual(emptyBody, { institution: tenant.slug, dry_run: false, sections: {}, errors: [] });
      const emptySections = await push(tenant, { programs: [], campuses: [] });
      assert.deepEqual(emptySections.json().sections.programs, {
        received: 0,
        created: 0,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
    });

    test('envelope errors are 4xx with stable codes', async () => {
      const tenant = await seedTenant(ctx());
      const token = tenant.rosterSecret;
      const missing = await ctx().request({ method: 'POST', url, token, body: { programs: [] } });
      assert.deepEqual(
        [missing.statusCode, missing.json().error, missing.json().field],
        [400, 'missing_field', 'institution'],
      );
      const notArray = await push(tenant, { programs: { program_code: 'X' } });
      assert.deepEqual(
        [notArray.statusCode, notArray.json().error, notArray.json().field],
        [400, 'invalid_field', 'programs'],
      );
      const badDry = await push(tenant, { dry_run: 'yes' });
      assert.equal(badDry.statusCode, 400);
      const unknown = await push(tenant, { campusses: [] });
      assert.deepEqual(
        [unknown.statusCode, unknown.json().error, unknown.json().field],
        [400, 'unknown_section', 'campusses'],
      );
      const malformed = await ctx().request({
        method: 'POST',
        url,
        token,
        headers: { 'content-type': 'application/json' },
        body: undefined,
      });
      assert.equal(malformed.statusCode, 400);
      const truncated = await ctx().app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        payload: '{"institution": "x", "programs": [',
      });
      assert.deepEqual([truncated.statusCode, truncated.json().error], [400, 'malformed_json']);
      const text = await ctx().app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` },
        payload: 'hello',
      });
      assert.equal(text.statusCode, 415);
      const array = await ctx().app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        payload: '[]',
      });
      assert.equal(array.statusCode, 400);
    });

    test('is described in the OpenAPI document', async () => {
      const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json();
      const op = doc.paths['/api/sis/enrolments'].post;
      assert.ok(op.description.includes('duplicate_key'));
      const media = op.requestBody.content['application/json'];
      assert.ok(media.example || media.examples);
      assert.ok(op.responses['413']);
    });
  });
});

describeEachDatabase(
  'POST /api/sis/enrolments: rate limit',
  (ctx) => {
    test('beyond the per-minute limit: 429 rate_limited with Retry-After', async () => {
      const tenant = await seedTenant(ctx());
      const push = pusher(ctx);
      assert.equal((await push(tenant, {})).statusCode, 200);
      assert.equal((await push(tenant, {})).statusCode, 200);
      const limited = await push(tenant, {});
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
    });
  },
  { config: { enrolmentsRateLimitPerMinute: 2 } },
);

describeEachDatabase(
  'POST /api/sis/enrolments: rate limit before authentication',
  (ctx) => {
    test('requests with a wrong secret count too, so secrets cannot be guessed at speed', async () => {
      const tenant = await seedTenant(ctx());
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const res = await ctx().request({
          method: 'POST',
          url,
          token: 'ssp_roster_guess',
          body: { institution: tenant.slug },
        });
        statuses.push(res.statusCode);
      }
      assert.deepEqual(statuses, [401, 401, 429]);
    });
  },
  { config: { enrolmentsRateLimitPerMinute: 2 } },
);
