// The service remembers what pulls placed (oneroster_memory), so a delta pull resolves what it
// omits: a new student in an unchanged school gets the school's campus and the department's
// program, an enrollment moved to a class of another course withdraws the old unit and term,
// and an enrollment tobedeleted withdraws what it placed even when its class is in no export.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type PullDeps, pullDepsOf, pullNow } from '../../src/domain/oneroster/pull/pull.ts';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';
import { configureSource, generateRoster, providerPool, touch } from '../helpers/oneroster-provider.ts';
import { listed } from '../helpers/roster.ts';

type Enrolment = { student_id_ext: string; unit_code: string; term_code: string; status: string };

describeEachDatabase(
  'OneRoster memory: delta pulls',
  (context) => {
    let ctx: TestContext;
    let deps: PullDeps;
    const startProvider = providerPool();
    before(() => {
      ctx = context();
      deps = { ...pullDepsOf(ctx.deps), sleep: async () => {} };
    });
    const list = (slug: string, what: string) => listed(ctx, slug, what);
    const later = () => new Date(Date.now() + 1000);

    const pulled = async (students: number) => {
      const tenant = await seedTenant(ctx);
      const p = await startProvider({
        data: generateRoster({ students, courses: 3, enrolmentsPerStudent: 1 }),
      });
      await configureSource(ctx, tenant.slug, p, { cohort_id: tenant.cohortId });
      const full = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(full.status, 'ok', full.error ?? '');
      return { tenant, p };
    };

    test('a new student in a delta, in a school and department the delta does not carry, gets their campus and program', async () => {
      const { tenant, p } = await pulled(4);
      const at = later();
      const template = p.data.users.find((u) => u.sourcedId === 'u-1')!;
      p.data.users.push({
        ...template,
        sourcedId: 'u-new',
        username: 'newcomer',
        givenName: 'New',
        identifier: 'S-NEW',
        email: 'newcomer@nbu.example.edu',
        dateLastModified: at.toISOString(),
      });
      const delta = await pullNow(deps, tenant.institutionId, 'delta');
      assert.equal(delta.status, 'ok', delta.error ?? '');
      assert.equal(delta.sections.roster?.created, 1);
      assert.equal(delta.sections.programs, undefined, 'the delta carried no org');
      const students = await list(tenant.slug, 'students');
      const newcomer = students.find((s: { student_id_ext: string }) => s.student_id_ext === 'S-NEW');
      assert.equal(newcomer.campus_name, 'Riverside Campus');
      assert.equal(newcomer.program_code, 'BN');
      const { rows } = await ctx.db.query<{ kind: string; n: number }>(
        'SELECT kind, count(*)::int AS n FROM oneroster_memory WHERE institution_id = $1 GROUP BY kind ORDER BY kind',
        [tenant.institutionId],
      );
      assert.deepEqual(
        Object.fromEntries(rows.map((r) => [r.kind, r.n])),
        { class: 3, course: 3, enrollment: 4, org: 4, user: 6 },
        'orgs, courses, classes, users (the teacher too) and student enrollments',
      );
    });

    test('an enrollment moved to a class of another course withdraws the old unit and term and enrols the new', async () => {
      const { tenant, p } = await pulled(3);
      const moved = p.data.enrollments.find((e) => e.sourcedId === 'e-0')!;
      assert.equal((moved.class as { sourcedId: string }).sourcedId, 'cl-101-a');
      touch(moved, { class: { sourcedId: 'cl-103-a' } }, later());
      const delta = await pullNow(deps, tenant.institutionId, 'delta');
      assert.equal(delta.status, 'ok', delta.error ?? '');
      assert.equal(delta.error_count, 0);
      const s0 = (await list(tenant.slug, 'enrolments'))
        .filter((e: Enrolment) => e.student_id_ext === 'S0')
        .map((e: Enrolment) => `${e.unit_code} ${e.term_code} ${e.status}`)
        .sort();
      assert.deepEqual(s0, ['NURS101 as-2026-s1 withdrawn', 'NURS103 as-2026-s1 enrolled']);
      assert.ok(
        delta.notes.some((n) => /1 enrollments moved/.test(n)),
        delta.notes.join('; '),
      );
    });

    test('an enrollment tobedeleted whose class is in no export any more withdraws what it placed', async () => {
      const { tenant, p } = await pulled(3);
      const leaving = p.data.enrollments.find((e) => e.sourcedId === 'e-1')!;
      // The class is gone from the provider altogether; the enrollment names it, tobedeleted.
      p.data.classes = p.data.classes.filter((c) => c.sourcedId !== 'cl-102-a');
      touch(leaving, { status: 'tobedeleted' }, later());
      const delta = await pullNow(deps, tenant.institutionId, 'delta');
      assert.equal(delta.status, 'ok', delta.error ?? '');
      assert.equal(delta.error_count, 0, JSON.stringify(delta));
      const s1 = (await list(tenant.slug, 'enrolments')).filter((e: Enrolment) => e.student_id_ext === 'S1');
      assert.deepEqual(
        s1.map((e: Enrolment) => `${e.unit_code} ${e.status}`),
        ['NURS102 withdrawn'],
      );
      const { rows } = await ctx.db.query(
        "SELECT 1 FROM oneroster_memory WHERE institution_id = $1 AND kind = 'enrollment' AND sourced_id = 'e-1'",
        [tenant.institutionId],
      );
      assert.equal(rows.length, 0, 'forgotten once withdrawn');
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
