// Property-based tests of POST /api/sis/enrolments: no body of any shape gives a 5xx, and
// malformed rows never stop the good rows of the same request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseCampus, parseProgram } from '../../src/domain/taxonomy/rows.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

const url = '/api/sis/enrolments';
const runs = { numRuns: 25 };

/** Strings that have broken services before: NUL, lone surrogates, very long, blank. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', '\uDFFFx', ' ', '', 'x'.repeat(5000), 'É', 'ß', 'İ', 'ǅ'),
);
const json = fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 });
const value = fc.oneof(json, nastyString, fc.integer(), fc.boolean(), fc.constant(null));

/** Objects shaped like rows of any section, with right and wrong types mixed. */
const rowLike = fc.oneof(
  value,
  fc.record(
    {
      program_code: value,
      name: value,
      campus_name: value,
      coordinator_name: value,
      coordinator_title: value,
      term_code: value,
      unit_code: value,
      start_date: value,
      end_date: value,
      email: value,
      student_id_ext: value,
      status: value,
    },
    { requiredKeys: [] },
  ),
);

describeEachDatabase('POST /api/sis/enrolments: properties', (ctx) => {
  test('no body of any shape gives a 5xx', async () => {
    const tenant = await seedTenant(ctx());
    const body = fc.oneof(
      json,
      fc.record(
        {
          institution: fc.oneof(fc.constant(tenant.slug), value),
          dry_run: fc.oneof(fc.boolean(), value),
          programs: fc.oneof(fc.array(rowLike, { maxLength: 12 }), value),
          campuses: fc.oneof(fc.array(rowLike, { maxLength: 12 }), value),
          terms: fc.oneof(fc.array(rowLike, { maxLength: 6 }), value),
          units: fc.oneof(fc.array(rowLike, { maxLength: 6 }), value),
          enrolments: fc.oneof(fc.array(rowLike, { maxLength: 6 }), value),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await ctx().request({ method: 'POST', url, token: tenant.rosterSecret, body: payload });
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body} for ${JSON.stringify(payload)}`);
        assert.equal(typeof res.json(), 'object');
      }),
      runs,
    );
  });

  test('rows of any shape, close to valid ones, never give a 5xx', async () => {
    const tenant = await seedTenant(ctx());
    const code = fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,8}$/), value);
    const nearValid = {
      programs: fc.record(
        { program_code: code, name: value, coordinator_name: value, coordinator_title: value },
        { requiredKeys: ['program_code'] },
      ),
      campuses: fc.record({ name: code, campus_name: code }, { requiredKeys: [] }),
    };
    const request = fc.record(
      {
        dry_run: fc.boolean(),
        programs: fc.array(fc.oneof(nearValid.programs, rowLike), { maxLength: 10 }),
        campuses: fc.array(fc.oneof(nearValid.campuses, rowLike), { maxLength: 10 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(request, async (sections) => {
        const res = await ctx().request({
          method: 'POST',
          url,
          token: tenant.rosterSecret,
          body: { institution: tenant.slug, ...sections },
        });
        assert.equal(res.statusCode, 200, `${res.body} for ${JSON.stringify(sections)}`);
      }),
      { numRuns: 40 },
    );
  });

  test('raw payloads that are not JSON give a 4xx', async () => {
    const tenant = await seedTenant(ctx());
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (payload) => {
        const res = await ctx().app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.rosterSecret}` },
          payload,
        });
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
      }),
      runs,
    );
  });

  test('bad rows never block good rows (programs and campuses)', async () => {
    const tenant = await seedTenant(ctx());
    let round = 0;
    const badProgram = rowLike.filter((row) => !parseProgram(row).ok);
    const badCampus = rowLike.filter((row) => !parseCampus(row).ok);
    const section = (bad: fc.Arbitrary<unknown>) =>
      fc.array(
        fc.oneof(
          fc.constant('good' as const),
          bad.map((row) => ({ bad: row })),
        ),
        { maxLength: 15 },
      );
    await fc.assert(
      fc.asyncProperty(
        section(badProgram),
        section(badCampus),
        fc.boolean(),
        async (programs, campuses, dryRun) => {
          round++;
          const programRows = programs.map((entry, i) =>
            entry === 'good' ? { program_code: `P-${round}-${i}`, name: `Program ${i}` } : entry.bad,
          );
          const campusRows = campuses.map((entry, i) =>
            entry === 'good' ? { name: `Campus ${round}-${i}` } : entry.bad,
          );
          const res = await ctx().request({
            method: 'POST',
            url,
            token: tenant.rosterSecret,
            body: { institution: tenant.slug, dry_run: dryRun, programs: programRows, campuses: campusRows },
          });
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          const goodPrograms = programs.filter((e) => e === 'good').length;
          const goodCampuses = campuses.filter((e) => e === 'good').length;
          assert.equal(body.sections.programs.created, goodPrograms);
          assert.equal(body.sections.programs.rejected, programs.length - goodPrograms);
          assert.equal(body.sections.campuses.created, goodCampuses);
          assert.equal(body.sections.campuses.rejected, campuses.length - goodCampuses);
          assert.equal(body.errors.length, programs.length - goodPrograms + campuses.length - goodCampuses);
          const stored = await ctx().db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM programs WHERE institution_id = $1 AND code LIKE $2',
            [tenant.institutionId, `P-${round}-%`],
          );
          assert.equal(stored.rows[0].n, dryRun ? 0 : goodPrograms);
        },
      ),
      runs,
    );
  });
});
