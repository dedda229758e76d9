// What the roster feed tells a caller beyond counts: misspelt top-level fields are refused
// (never a real push by mistake), row errors carry codes, values that matched nothing come
// back as warnings and stay with the run, and the run is part of the push's transaction.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant } from '../helpers/app.ts';
import { pushEnrolments } from '../helpers/roster.ts';

const URL = '/api/sis/sync';

// The suites below share one app per database: every test that writes does so in an institution
// of its own.
describeEachDatabase('the feeds', (ctx) => {
  describe('roster sync: envelope, warnings and run history', () => {
    const sync = (tenant: SeededTenant, body: unknown) =>
      ctx().request({ method: 'POST', url: URL, body, token: tenant.rosterSecret });
    const count = async (table: 'students' | 'sis_runs', tenant: SeededTenant) =>
      (
        await ctx().db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE institution_id = $1`,
          [tenant.institutionId],
        )
      ).rows[0].n;
    const row = (n: number, extra: Record<string, unknown> = {}) => ({
      email: `student${n}@example.edu`,
      student_id_ext: `S${n}`,
      ...extra,
    });

    test('a misspelt top-level field is 400 unknown_field with a suggestion, and writes nothing', async () => {
      const tenant = await seedTenant(ctx());
      const cases: [body: Record<string, unknown>, field: string, suggestion?: string][] = [
        [{ cohort_id: tenant.cohortId, students: [row(1)], dryRun: true }, 'dryRun', 'dry_run'],
        [{ cohort_id: tenant.cohortId, students: [row(1)], 'dry-run': true }, 'dry-run', 'dry_run'],
        [{ cohortId: tenant.cohortId, students: [row(1)] }, 'cohortId', 'cohort_id'],
        [{ cohort_id: tenant.cohortId, student: [row(1)] }, 'student', 'students'],
        [{ cohort_id: tenant.cohortId, students: [row(1)], syncId: 'night' }, 'syncId', 'sync_id'],
        [{ cohort_id: tenant.cohortId, students: [row(1)], priority: 'high' }, 'priority'],
      ];
      for (const [body, field, suggestion] of cases) {
        const res = await sync(tenant, body);
        assert.equal(res.statusCode, 400, res.body);
        const json = res.json();
        assert.equal(json.error, 'unknown_field');
        assert.equal(json.field, field);
        assert.equal(json.suggestion, suggestion);
        if (suggestion) assert.match(json.detail, new RegExp(`did you mean ${suggestion}\\?`));
        else assert.match(json.detail, /cohort_id, students, dry_run, sync_id, final_page/);
      }
      assert.equal(await count('students', tenant), 0);
      assert.equal(await count('sis_runs', tenant), 0);
      // The secret is still checked first: an unknown caller learns nothing about the body.
      const stranger = await ctx().request({
        method: 'POST',
        url: URL,
        body: { cohort_id: tenant.cohortId, students: [], dryRun: true },
        token: 'ssp_roster_wrong',
      });
      assert.equal(stranger.statusCode, 401);
      // The OpenAPI document says so.
      const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json();
      const schema = doc.paths[URL].post.requestBody.content['application/json'].schema;
      assert.equal(schema.additionalProperties, false);
      assert.match(schema.description, /unknown_field/);
    });

    test('a real push reports unknown program codes and campus values as warnings, kept with the run', async () => {
      const tenant = await seedTenant(ctx());
      await ctx().db.query('INSERT INTO programs (institution_id, code) VALUES ($1, $2)', [
        tenant.institutionId,
        'BSCI',
      ]);
      await ctx().db.query('INSERT INTO campuses (institution_id, name) VALUES ($1, $2)', [
        tenant.institutionId,
        'City',
      ]);
      const res = await sync(tenant, {
        cohort_id: tenant.cohortId,
        students: [
          row(1, { program_code: 'bsci', campus_name: 'city' }),
          row(2, { program_code: 'BSCX', campus_name: 'Moon' }),
          row(3, { program_code: 'bscx', campus_code: 'Mars' }),
          { email: 'no-ext@example.edu' },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.imported, 3);
      assert.deepEqual(body.errors, [
        {
          row: 3,
          email: 'no-ext@example.edu',
          student_id_ext: null,
          code: 'missing_field',
          field: 'student_id_ext',
          message: 'The student ID is missing',
        },
      ]);
      assert.deepEqual(
        body.warnings.map((w: { code: string; field: string; value: string; rows: number[] }) => [
          w.code,
          w.field,
          w.value,
          w.rows,
        ]),
        [
          ['unknown_program_code', 'program_code', 'BSCX', [1, 2]],
          ['unknown_campus', 'campus_name', 'Moon', [1]],
          ['unknown_campus', 'campus_code', 'Mars', [2]],
        ],
      );
      for (const warning of body.warnings) assert.ok(warning.message.length > 0);
      assert.equal(body.dry_run, undefined, 'a real push has none of the dry-run fields');
      // The rows imported with the value unset.
      const { rows } = await ctx().db.query<{ program_id: string | null; campus_id: string | null }>(
        'SELECT program_id, campus_id FROM students WHERE institution_id = $1 ORDER BY student_id_ext',
        [tenant.institutionId],
      );
      assert.deepEqual(
        rows.map((r) => [r.program_id !== null, r.campus_id !== null]),
        [
          [true, true],
          [false, false],
          [false, false],
        ],
      );
      // The push history keeps them: the run has the warnings and the coded errors.
      const run = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${body.run_id}`);
      assert.equal(run.statusCode, 200, run.body);
      // The run keeps each warning with its rows as lines too (the one numbering people see).
      assert.deepEqual(
        run.json().details.warnings,
        body.warnings.map((w: { rows: number[] }) => ({ ...w, lines: w.rows.map((r) => r + 1) })),
      );
      // The run keeps each error with its line: no `lines` sent, so its 1-based place in the request.
      assert.deepEqual(
        run.json().errors,
        body.errors.map((e: { row: number }) => ({ ...e, line: e.row + 1 })),
      );
      assert.equal(run.json().dry_run, false);
      assert.deepEqual(run.json().counts, { created: 3, updated: 0, imported: 3, unchanged: 0 });
      // A dry run reports the same warnings (and the older per-value lists).
      const dry = await sync(tenant, {
        cohort_id: tenant.cohortId,
        dry_run: true,
        students: [row(4, { program_code: 'X' })],
      });
      assert.deepEqual(
        dry.json().warnings.map((w: { code: string; rows: number[] }) => [w.code, w.rows]),
        [['unknown_program_code', [0]]],
      );
      assert.deepEqual(dry.json().unknown_program_codes, [{ value: 'X', rows: [0] }]);
    });

    test('more than 5000 students is 413 from the domain, after the cohort check', async () => {
      const tenant = await seedTenant(ctx());
      const students = Array.from({ length: 5001 }, () => 1);
      const over = await sync(tenant, { cohort_id: tenant.cohortId, students });
      assert.equal(over.statusCode, 413);
      assert.deepEqual([over.json().error, over.json().max], ['batch_too_large', 5000]);
      const foreign = await seedTenant(ctx());
      const notYours = await sync(tenant, { cohort_id: foreign.cohortId, students });
      assert.equal(notYours.json().error, 'cohort_not_found');
      assert.equal(await count('sis_runs', tenant), 0);
    });

    test('the run is written in the push transaction: if it cannot be written, the push does not land', async () => {
      const tenant = await seedTenant(ctx());
      const db = ctx().db;
      const suffix = tenant.institutionId.replaceAll('-', '');
      // A fault in the run history for this institution only.
      await db.query(`CREATE FUNCTION fail_run_${suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.institution_id = '${tenant.institutionId}' THEN RAISE EXCEPTION 'run history unavailable'; END IF;
        RETURN NEW;
      END $$`);
      await db.query(
        `CREATE TRIGGER fail_run_${suffix} BEFORE INSERT ON sis_runs FOR EACH ROW EXECUTE FUNCTION fail_run_${suffix}()`,
      );
      try {
        const res = await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1), row(2)] });
        assert.equal(res.statusCode, 500, res.body);
        assert.equal(res.json().error, 'internal_error');
        assert.equal(await count('students', tenant), 0, 'no students without their run');
        const enrolments = await pushEnrolments(ctx(), tenant, {
          programs: [{ program_code: 'P1', name: 'P' }],
        });
        assert.equal(enrolments.statusCode, 500, enrolments.body);
        const { rows } = await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM programs WHERE institution_id = $1',
          [tenant.institutionId],
        );
        assert.equal(rows[0].n, 0, 'no programs without their run');
      } finally {
        await db.query(`DROP TRIGGER fail_run_${suffix} ON sis_runs`);
        await db.query(`DROP FUNCTION fail_run_${suffix}()`);
      }
      const res = await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1), row(2)] });
      assert.equal(res.json().created, 2);
      assert.equal(await count('sis_runs', tenant), 1);
    });
  });

  describe('enrolments feed: unknown top-level fields', () => {
    test('a misspelt section is refused with a suggestion, through the same check as the other feeds', async () => {
      const tenant = await seedTenant(ctx());
      const res = await pushEnrolments(ctx(), tenant, { campusses: [] });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        [res.json().error, res.json().field, res.json().suggestion],
        ['unknown_section', 'campusses', 'campuses'],
      );
      assert.match(res.json().detail, /did you mean campuses\?/);
    });
  });
});
