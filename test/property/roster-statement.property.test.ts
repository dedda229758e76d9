import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { StudentListing } from '../../src/domain/institutions/schemas.ts';
import { changes, plan, unmatched } from '../../src/domain/roster/plan.ts';
import { matchPage } from '../../src/domain/roster/queries.ts';
import { type RosterRow, type RowError, validateRow } from '../../src/domain/roster/rows.ts';
import { syncRoster } from '../../src/domain/roster/sync.ts';
import { describeEachDatabase, type SeededTenant, seedTenant } from '../helpers/app.ts';

// A roster page that writes is decided by one SQL statement (queries.ts, writePage); a dry run
// by plan() on the match query's answer (plan.ts, unit-tested). For random stored students and
// random pages over a few keys (so that duplicates, conflicts, two rows on one student, case
// variants of an email, departed students and unknown programs and campuses all come up), the
// statement must decide exactly what plan() decides: the same errors (codes, fields and
// messages), warnings and counts, the same stored values, and updated_at moved (and the run's
// `unchanged` counted) exactly for the students changes() says change.

const emails = ['a@x.io', 'A@x.io', 'b@x.io', 'B@X.IO', 'c@x.io', 'd@x.io', 'é@x.io', 'É@x.io'];
const exts = ['E1', 'E2', 'e2', 'E3', 'E4', 'E5'];
const optional = <T>(values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });

const stored = fc.record({
  email: fc.constantFrom(...emails),
  ext: fc.constantFrom(...exts),
  otherCohort: fc.boolean(),
  first_name: optional(['Ada', 'Grace']),
  program: fc.boolean(),
  campus: fc.boolean(),
  first_in_family: optional([true, false]),
  start_date: optional(['2026-01-05', '2026-02-01']),
  departed: fc.boolean(),
});

const pageRow = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        email: fc.constantFrom(...emails),
        student_id_ext: fc.constantFrom(...exts),
        first_name: optional(['Ada', 'Grace', '']),
        last_name: optional(['Lovelace', null]),
        program_code: optional(['P1', 'p1', 'P2', 'nope']),
        campus_name: optional(['C1', 'old c1', 'nowhere']),
        campus_code: optional(['c1', 'elsewhere']),
        first_in_family: optional([true, false, 'true']),
        start_date: optional(['2026-01-05', '2026-02-01', '2026-02-30']),
      },
      { requiredKeys: ['email', 'student_id_ext'] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom({ email: 'not an email', student_id_ext: 'E9' }, 7) },
);

/** A stored student sent again as stored, maybe in another cohort: often a row that changes nothing. */
const resent = (existing: (typeof stored extends fc.Arbitrary<infer T> ? T : never)[]) =>
  fc.constantFrom(...existing).map((s) => ({
    email: s.email,
    student_id_ext: s.ext,
    first_name: s.first_name,
    program_code: s.program ? 'P1' : undefined,
    campus_code: s.campus ? 'c1' : undefined,
    first_in_family: s.first_in_family,
    start_date: s.start_date,
  }));

/** A student as stored: the listing's fields, with the program and campus ids the statement writes. */
type Student = Omit<StudentListing, 'program_code' | 'campus_name' | 'departed_at' | 'created_at'> & {
  program_id: string | null;
  campus_id: string | null;
  departed: boolean;
};

describeEachDatabase('roster: the page statement decides as plan() does (property-based)', (ctx) => {
  let tenant: SeededTenant;
  let otherCohort: string;
  let program: string;
  let campus: string;

  const read = async () => {
    const { rows } = await ctx().db.query<Student>(
      `SELECT id, cohort_id, email, student_id_ext, first_name, last_name, program_id, campus_id,
              first_in_family, to_char(start_date, 'YYYY-MM-DD') AS start_date,
              departed_at IS NOT NULL AS departed, updated_at::text AS updated_at
       FROM students WHERE institution_id = $1`,
      [tenant.institutionId],
    );
    return new Map(rows.map((s) => [s.id, s]));
  };

  test('setup', async () => {
    tenant = await seedTenant(ctx());
    const db = ctx().db;
    const id = async (sql: string, params: unknown[]) =>
      (await db.query<{ id: string }>(sql, params)).rows[0].id;
    otherCohort = await id(`INSERT INTO cohorts (institution_id, name) VALUES ($1, 'Other') RETURNING id`, [
      tenant.institutionId,
    ]);
    program = await id(`INSERT INTO programs (institution_id, code) VALUES ($1, 'P1') RETURNING id`, [
      tenant.institutionId,
    ]);
    await db.query(`INSERT INTO programs (institution_id, code) VALUES ($1, 'P2')`, [tenant.institutionId]);
    campus = await id(`INSERT INTO campuses (institution_id, name) VALUES ($1, 'C1') RETURNING id`, [
      tenant.institutionId,
    ]);
    await db.query(
      `INSERT INTO campus_aliases (institution_id, alias, campus_id) VALUES ($1, 'Old C1', $2)`,
      [tenant.institutionId, campus],
    );
  });

  test('same errors, warnings, counts, stored values and changed students', async () => {
    const { db, deps } = ctx();
    await fc.assert(
      fc.asyncProperty(
        fc.array(stored, { maxLength: 6 }).chain((existing) =>
          fc.tuple(
            fc.constant(existing),
            fc.array(existing.length > 0 ? fc.oneof(pageRow, resent(existing)) : pageRow, {
              maxLength: 14,
            }),
          ),
        ),
        async ([existing, students]) => {
          await db.query('DELETE FROM students WHERE institution_id = $1', [tenant.institutionId]);
          for (const s of existing) {
            await db.query(
              `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, program_id,
                                     campus_id, first_in_family, start_date, departed_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $10 THEN now() END, now() - interval '1 day')
               ON CONFLICT DO NOTHING`,
              [
                tenant.institutionId,
                s.otherCohort ? otherCohort : tenant.cohortId,
                s.email,
                s.ext,
                s.first_name ?? null,
                s.program ? program : null,
                s.campus ? campus : null,
                s.first_in_family ?? null,
                s.start_date ?? null,
                s.departed,
              ],
            );
          }
          const before = await read();

          // What plan() decides on the match query's answer.
          const rowErrors: RowError[] = [];
          const valid: RosterRow[] = [];
          students.forEach((raw, index) => {
            const result = validateRow(raw, index);
            if (result.ok) valid.push(result.row);
            else rowErrors.push(result.error);
          });
          const decided = plan(valid, await matchPage(db, tenant.institutionId, valid));
          const creates = decided.planned.filter((p) => !p.studentId);
          const updates = decided.planned.filter((p) => p.studentId);
          const changed = new Set(updates.filter((p) => changes(p, tenant.cohortId)).map((p) => p.studentId));

          const result = await syncRoster(deps, {
            institutionId: tenant.institutionId,
            cohortId: tenant.cohortId,
            students,
            dryRun: false,
            credential: 'institution_secret',
          });
          assert.deepEqual(
            result.errors,
            [...rowErrors, ...decided.errors].sort((a, b) => a.row - b.row),
          );
          assert.deepEqual(result.warnings, unmatched(decided.planned));
          assert.equal(result.created, creates.length);
          assert.equal(result.updated, updates.length);
          const run = await db.query<{ counts: { unchanged: number } }>(
            'SELECT counts FROM sis_runs WHERE id = $1',
            [result.run_id],
          );
          assert.equal(run.rows[0].counts.unchanged, updates.length - changed.size);

          const after = await read();
          assert.equal(after.size, before.size + creates.length);
          for (const [id, was] of before) {
            const now = after.get(id);
            assert.ok(now, 'no student is deleted');
            assert.equal(now.updated_at !== was.updated_at, changed.has(id), `updated_at of ${was.email}`);
          }
          const byEmail = new Map([...after.values()].map((s) => [s.email, s]));
          for (const p of decided.planned) {
            const { row, match: m } = p;
            const now = byEmail.get(row.email);
            assert.ok(now, `${row.email} is stored as sent`);
            if (p.studentId) assert.equal(now.id, p.studentId);
            const was = p.studentId ? before.get(p.studentId) : undefined;
            assert.deepEqual(
              {
                cohort_id: now.cohort_id,
                student_id_ext: now.student_id_ext,
                first_name: now.first_name,
                last_name: now.last_name,
                program_id: now.program_id,
                campus_id: now.campus_id,
                first_in_family: now.first_in_family,
                start_date: now.start_date,
                departed: now.departed,
              },
              {
                cohort_id: tenant.cohortId,
                student_id_ext: row.student_id_ext,
                first_name: row.first_name ?? was?.first_name ?? null,
                last_name: row.last_name ?? was?.last_name ?? null,
                program_id: m.program_id ?? was?.program_id ?? null,
                campus_id: m.campus_id ?? was?.campus_id ?? null,
                first_in_family: row.first_in_family ?? was?.first_in_family ?? null,
                start_date: row.start_date ?? was?.start_date ?? null,
                departed: false,
              },
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
