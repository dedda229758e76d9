// Property-based tests of POST /api/sis/enrolments: no body of any shape gives a 5xx, and
// malformed rows never stop the good rows of the same request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseCampus, parseEnrolment, parseProgram } from '../../src/domain/taxonomy/rows.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { insertStudents } from '../helpers/students.ts';

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
    await insertStudents(ctx().db, tenant, [
      { email: 'a@example.edu', student_id_ext: 'S1' },
      { email: 'b@example.edu', student_id_ext: 'S2' },
    ]);
    const date = fc
      .date({ min: new Date('1890-01-01'), max: new Date('3010-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    const code = fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,8}$/), value);
    const nearValid = {
      programs: fc.record(
        { program_code: code, name: value, coordinator_name: value, coordinator_title: value },
        { requiredKeys: ['program_code'] },
      ),
      campuses: fc.record({ name: code, campus_name: code }, { requiredKeys: [] }),
      terms: fc.record(
        { term_code: code, name: value, start_date: fc.oneof(date, value), end_date: fc.oneof(date, value) },
        { requiredKeys: ['term_code'] },
      ),
      units: fc.record(
        { unit_code: code, name: value, program_code: code, campus_name: code, campus_code: code },
        { requiredKeys: ['unit_code'] },
      ),
      enrolments: fc.record(
        {
          email: fc.oneof(fc.constantFrom('a@example.edu', 'B@EXAMPLE.EDU'), value),
          student_id_ext: fc.oneof(fc.constantFrom('S1', 'S2'), value),
          unit_code: code,
          term_code: code,
          status: fc.oneof(fc.constantFrom('enrolled', 'Withdrawn', 'completed'), value),
        },
        { requiredKeys: [] },
      ),
    };
    const request = fc.record(
      {
        dry_run: fc.boolean(),
        programs: fc.array(fc.oneof(nearValid.programs, rowLike), { maxLength: 10 }),
        campuses: fc.array(fc.oneof(nearValid.campuses, rowLike), { maxLength: 10 }),
        terms: fc.array(fc.oneof(nearValid.terms, rowLike), { maxLength: 10 }),
        units: fc.array(fc.oneof(nearValid.units, rowLike), { maxLength: 10 }),
        enrolments: fc.array(fc.oneof(nearValid.enrolments, rowLike), { maxLength: 10 }),
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

  test('bad rows never block good rows (enrolments)', async () => {
    const tenant = await seedTenant(ctx());
    const students = Array.from({ length: 20 }, (_, i) => ({
      email: `s${i}@example.edu`,
      student_id_ext: `E${i}`,
    }));
    await insertStudents(ctx().db, tenant, students);
    const setup = await ctx().request({
      method: 'POST',
      url,
      token: tenant.rosterSecret,
      body: {
        institution: tenant.slug,
        terms: [{ term_code: 'T1', start_date: '2026-01-01', end_date: '2026-06-30' }],
        units: Array.from({ length: 50 }, (_, i) => ({ unit_code: `U${i}` })),
      },
    });
    assert.equal(setup.statusCode, 200);
    let round = 0;
    const bad = rowLike.filter((row) => !parseEnrolment(row).ok);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant('good' as const),
            bad.map((row) => ({ bad: row })),
          ),
          { maxLength: 20 },
        ),
        async (entries) => {
          const unit = `U${round++ % 50}`;
          // Each good row is a distinct student in this round's unit; ids alternate between email and ext.
          const rows = entries.map((entry, i) =>
            entry === 'good'
              ? i % 2 === 0
                ? {
                    email: students[i].email.toUpperCase(),
                    unit_code: unit,
                    term_code: 't1',
                    status: 'completed',
                  }
                : {
                    student_id_ext: students[i].student_id_ext,
                    unit_code: unit,
                    term_code: 'T1',
                    status: 'completed',
                  }
              : entry.bad,
          );
          const res = await ctx().request({
            method: 'POST',
            url,
            token: tenant.rosterSecret,
            body: { institution: tenant.slug, enrolments: rows },
          });
          assert.equal(res.statusCode, 200, res.body);
          const report = res.json().sections.enrolments;
          const good = entries.filter((e) => e === 'good').length;
          assert.equal(report.created + report.updated + report.unchanged, good);
          assert.equal(report.rejected, entries.length - good);
          const { rows: stored } = await ctx().db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM enrolments e JOIN units u ON u.id = e.unit_id
             WHERE e.institution_id = $1 AND u.code = $2 AND e.status = 'completed'`,
            [tenant.institutionId, unit],
          );
          assert.ok(stored[0].n >= good);
        },
      ),
      runs,
    );
  });
});
