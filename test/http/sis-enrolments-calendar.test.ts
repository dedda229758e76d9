// Terms, units and enrolments on POST /api/sis/enrolments, and their admin listings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { insertStudents } from '../helpers/students.ts';

const url = '/api/sis/enrolments';

function pusher(ctx: () => TestContext) {
  return (tenant: SeededTenant, body: Record<string, unknown>) =>
    ctx().request({
      method: 'POST',
      url,
      token: tenant.rosterSecret,
      body: { institution: tenant.slug, ...body },
    });
}

type Err = { section: string; row: number; code: string; field?: string; message: string };
const codes = (errors: Err[]) => errors.map((e) => [e.section, e.row, e.code]);

async function count(ctx: TestContext, table: string, tenant: SeededTenant): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE institution_id = $1`,
    [tenant.institutionId],
  );
  return rows[0].n;
}

const term = (code: string, start = '2026-02-23', end = '2026-06-19', name?: string) => ({
  term_code: code,
  start_date: start,
  end_date: end,
  ...(name ? { name } : {}),
});

// The suites below share one app per database: every test that writes does so in an institution
// of its own.
describeEachDatabase('POST /api/sis/enrolments', (ctx) => {
  describe('terms', () => {
    const push = pusher(ctx);

    test('creates terms, re-push is unchanged, keys match case-insensitively, name kept when omitted', async () => {
      const tenant = await seedTenant(ctx());
      const first = await push(tenant, {
        terms: [
          term('2026-S1', undefined, undefined, 'Semester 1'),
          term('2026-S2', '2026-07-20', '2026-11-13'),
        ],
      });
      assert.deepEqual(first.json().sections.terms, {
        received: 2,
        created: 2,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
      const again = await push(tenant, {
        terms: [term('2026-s1'.toUpperCase(), undefined, undefined, 'Semester 1')],
      });
      assert.deepEqual(again.json().sections.terms, {
        received: 1,
        created: 0,
        updated: 0,
        unchanged: 1,
        rejected: 0,
      });
      const moved = await push(tenant, { terms: [{ term_code: '2026-s1', end_date: '2026-06-26' }] });
      assert.deepEqual(moved.json().sections.terms, {
        received: 1,
        created: 0,
        updated: 1,
        unchanged: 0,
        rejected: 0,
      });
      const listed = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/terms`);
      assert.equal(listed.statusCode, 200);
      assert.deepEqual(
        listed
          .json()
          .items.map((t: Record<string, string>) => [t.term_code, t.name, t.start_date, t.end_date]),
        [
          ['2026-s1', 'Semester 1', '2026-02-23', '2026-06-26'],
          ['2026-S2', null, '2026-07-20', '2026-11-13'],
        ],
      );
    });

    test('date rules: real yyyy-mm-dd dates, end not before start, both needed for a new term', async () => {
      const tenant = await seedTenant(ctx());
      await push(tenant, { terms: [term('T0', '2026-03-01', '2026-03-31')] });
      const res = await push(tenant, {
        terms: [
          term('T1', '2026-02-30', '2026-03-01'),
          term('T2', '2026/01/01', '2026-03-01'),
          { term_code: 'T3', start_date: 20260101, end_date: '2026-03-01' },
          term('T4', '2026-05-01', '2026-04-30'),
          { term_code: 'T5', start_date: '2026-01-01' },
          { term_code: 'T0', start_date: '2026-04-01' },
          term('T6', '2026-05-01', '2026-05-01'),
          { term_code: 'T0', end_date: '2026-04-30' },
        ],
      });
      const body = res.json();
      assert.deepEqual(
        body.errors.map((e: Err) => [e.row, e.code, e.field]),
        [
          [0, 'invalid_date', 'start_date'],
          [1, 'invalid_date', 'start_date'],
          [2, 'invalid_date', 'start_date'],
          [3, 'end_before_start', 'end_date'],
          [4, 'missing_field', 'end_date'],
          [5, 'end_before_start', 'end_date'],
          [7, 'duplicate_key', undefined],
        ],
      );
      assert.deepEqual(body.sections.terms, {
        received: 8,
        created: 1,
        updated: 0,
        unchanged: 0,
        rejected: 7,
      });
    });

    test('413 beyond 500 terms', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, { terms: Array.from({ length: 501 }, (_, i) => term(`T${i}`)) });
      assert.deepEqual(
        [res.statusCode, res.json().error, res.json().max, res.json().field],
        [413, 'batch_too_large', 500, 'terms'],
      );
    });
  });

  describe('units', () => {
    const push = pusher(ctx);

    test('units link to programs and campuses of the same request; links kept, changed and cleared', async () => {
      const tenant = await seedTenant(ctx());
      const first = await push(tenant, {
        programs: [{ program_code: 'NURS' }, { program_code: 'HIST' }],
        campuses: [{ name: 'City' }],
        units: [
          { unit_code: 'NURS101', name: 'Foundations', program_code: 'nurs', campus_name: 'CITY' },
          { unit_code: 'HIST200', campus_code: 'City' },
        ],
      });
      assert.deepEqual(first.json().sections.units, {
        received: 2,
        created: 2,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
      const list = async () =>
        (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/units`))
          .json()
          .items.map((u: Record<string, string>) => [u.unit_code, u.name, u.program_code, u.campus_name]);
      assert.deepEqual(await list(), [
        ['HIST200', null, null, 'City'],
        ['NURS101', 'Foundations', 'NURS', 'City'],
      ]);
      const same = await push(tenant, {
        units: [{ unit_code: 'nurs101'.toUpperCase() }, { unit_code: 'HIST200', campus_name: 'city' }],
      });
      assert.deepEqual(same.json().sections.units, {
        received: 2,
        created: 0,
        updated: 0,
        unchanged: 2,
        rejected: 0,
      });
      const changed = await push(tenant, {
        units: [
          { unit_code: 'NURS101', campus_name: null },
          { unit_code: 'HIST200', program_code: 'HIST', name: 'Modern History' },
        ],
      });
      assert.equal(changed.json().sections.units.updated, 2);
      assert.deepEqual(await list(), [
        ['HIST200', 'Modern History', 'HIST', 'City'],
        ['NURS101', 'Foundations', 'NURS', null],
      ]);
      const byProgram = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/units?program_code=hist`,
      );
      assert.deepEqual(
        byProgram.json().items.map((u: { unit_code: string }) => u.unit_code),
        ['HIST200'],
      );
    });

    test('an unknown program or campus rejects the unit, naming which; the other rows apply', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, {
        units: [
          { unit_code: 'U1', program_code: 'NOPE' },
          { unit_code: 'U2', campus_name: 'Nowhere' },
          { unit_code: 'U3', program_code: 'NOPE', campus_name: 'Nowhere' },
          { unit_code: 'U4' },
          { unit_code: 'U4', name: 'again' },
          { name: 'no code' },
        ],
      });
      const body = res.json();
      assert.deepEqual(codes(body.errors), [
        ['units', 0, 'program_not_found'],
        ['units', 1, 'campus_not_found'],
        ['units', 2, 'program_not_found'],
        ['units', 2, 'campus_not_found'],
        ['units', 4, 'duplicate_key'],
        ['units', 5, 'missing_field'],
      ]);
      assert.match(body.errors[0].message, /NOPE/);
      assert.deepEqual(body.sections.units, {
        received: 6,
        created: 1,
        updated: 0,
        unchanged: 0,
        rejected: 5,
      });
      assert.equal(await count(ctx(), 'units', tenant), 1);
    });

    test('413 beyond 5000 units', async () => {
      const tenant = await seedTenant(ctx());
      const res = await push(tenant, {
        units: Array.from({ length: 5001 }, (_, i) => ({ unit_code: `U${i}` })),
      });
      assert.deepEqual([res.statusCode, res.json().max, res.json().field], [413, 5000, 'units']);
    });
  });

  describe('enrolments', () => {
    const push = pusher(ctx);

    async function calendar(tenant: SeededTenant) {
      const res = await push(tenant, {
        terms: [term('2026-S1'), term('2026-S2', '2026-07-20', '2026-11-13')],
        units: [{ unit_code: 'NURS101' }, { unit_code: 'HIST200' }],
      });
      assert.equal(res.statusCode, 200);
      await insertStudents(ctx().db, tenant, [
        { email: 'Mia.Chen@example.edu', student_id_ext: 'S1' },
        { email: 'ola@example.edu', student_id_ext: 'S2' },
      ]);
    }

    test('enrols by email (case-insensitive) or student_id_ext; re-push unchanged; status updates in place', async () => {
      const tenant = await seedTenant(ctx());
      await calendar(tenant);
      const rows = [
        { email: 'mia.chen@EXAMPLE.edu', unit_code: 'nurs101', term_code: '2026-s1' },
        { student_id_ext: 'S2', unit_code: 'NURS101', term_code: '2026-S1', status: 'Withdrawn' },
        {
          email: 'ola@example.edu',
          student_id_ext: 'S2',
          unit_code: 'HIST200',
          term_code: '2026-S2',
          status: 'completed',
        },
      ];
      const first = await push(tenant, { enrolments: rows });
      assert.deepEqual(first.json().sections.enrolments, {
        received: 3,
        created: 3,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
      const again = await push(tenant, { enrolments: rows });
      assert.deepEqual(again.json().sections.enrolments, {
        received: 3,
        created: 0,
        updated: 0,
        unchanged: 3,
        rejected: 0,
      });
      const changed = await push(tenant, {
        enrolments: [
          { student_id_ext: 'S1', unit_code: 'NURS101', term_code: '2026-S1', status: 'completed' },
          { student_id_ext: 'S2', unit_code: 'NURS101', term_code: '2026-S1' },
        ],
      });
      assert.deepEqual(changed.json().sections.enrolments, {
        received: 2,
        created: 0,
        updated: 1,
        unchanged: 1,
        rejected: 0,
      });
      const listed = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/enrolments`);
      assert.deepEqual(
        listed.json().items.map((e: Record<string, string>) => [e.email, e.unit_code, e.term_code, e.status]),
        [
          ['Mia.Chen@example.edu', 'NURS101', '2026-S1', 'completed'],
          ['ola@example.edu', 'NURS101', '2026-S1', 'withdrawn'],
          ['ola@example.edu', 'HIST200', '2026-S2', 'completed'],
        ],
      );
      const filtered = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/enrolments?term_code=2026-s1&status=withdrawn&email=OLA@example.edu`,
      );
      assert.equal(filtered.json().items.length, 1);
      assert.equal(filtered.json().items[0].student_id_ext, 'S2');
    });

    test('a missing student, unit or term is a row error naming each; the other rows apply', async () => {
      const tenant = await seedTenant(ctx());
      await calendar(tenant);
      const other = await seedTenant(ctx());
      await insertStudents(ctx().db, other, [{ email: 'elsewhere@example.edu', student_id_ext: 'X1' }]);
      const res = await push(tenant, {
        enrolments: [
          { email: 'nobody@example.edu', unit_code: 'NURS101', term_code: '2026-S1' },
          { student_id_ext: 'S1', unit_code: 'NOPE', term_code: '2026-S1' },
          { student_id_ext: 'S1', unit_code: 'NURS101', term_code: '2030-S9' },
          { email: 'ghost@example.edu', unit_code: 'NOPE', term_code: 'NOPE' },
          { email: 'elsewhere@example.edu', unit_code: 'NURS101', term_code: '2026-S1' },
          { email: 'mia.chen@example.edu', student_id_ext: 'S2', unit_code: 'NURS101', term_code: '2026-S1' },
          { student_id_ext: 'S1', unit_code: 'NURS101', term_code: '2026-S1' },
          { email: 'MIA.CHEN@example.edu', unit_code: 'NURS101', term_code: '2026-S1', status: 'withdrawn' },
          { student_id_ext: 'S2', unit_code: 'NURS101', term_code: '2026-S1', status: 'dropped' },
          { unit_code: 'NURS101', term_code: '2026-S1' },
          { student_id_ext: 'S2', term_code: '2026-S1' },
        ],
      });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(codes(body.errors), [
        ['enrolments', 0, 'student_not_found'],
        ['enrolments', 1, 'unit_not_found'],
        ['enrolments', 2, 'term_not_found'],
        ['enrolments', 3, 'student_not_found'],
        ['enrolments', 3, 'unit_not_found'],
        ['enrolments', 3, 'term_not_found'],
        ['enrolments', 4, 'student_not_found'],
        ['enrolments', 5, 'student_conflict'],
        ['enrolments', 7, 'duplicate_key'],
        ['enrolments', 8, 'invalid_status'],
        ['enrolments', 9, 'missing_field'],
        ['enrolments', 10, 'missing_field'],
      ]);
      assert.match(body.errors[2].message, /2030-S9/);
      assert.deepEqual(body.sections.enrolments, {
        received: 11,
        created: 1,
        updated: 0,
        unchanged: 0,
        rejected: 10,
      });
      assert.equal(await count(ctx(), 'enrolments', tenant), 1);
      // Every error names the record by the keys its row was sent with, beside `row`.
      const keys = (e: Record<string, unknown>) => [
        e.row,
        e.email,
        e.student_id_ext,
        e.unit_code,
        e.term_code,
      ];
      assert.deepEqual(keys(body.errors[1]), [1, null, 'S1', 'NOPE', '2026-S1']);
      assert.deepEqual(keys(body.errors[6]), [4, 'elsewhere@example.edu', null, 'NURS101', '2026-S1']);
      assert.deepEqual(keys(body.errors[11]), [10, null, 'S2', null, '2026-S1']);
      const run = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${body.run_id}`);
      // The run keeps each error with its line: no `lines` sent, so its 1-based place in the section.
      assert.deepEqual(
        run.json().errors,
        body.errors.map((e: { row: number }) => ({ ...e, line: e.row + 1 })),
      );
    });

    test('413 beyond 5000 enrolments', async () => {
      const tenant = await seedTenant(ctx());
      const rows = Array.from({ length: 5001 }, (_, i) => ({
        student_id_ext: `S${i}`,
        unit_code: 'U',
        term_code: 'T',
      }));
      const res = await push(tenant, { enrolments: rows });
      assert.deepEqual([res.statusCode, res.json().max, res.json().field], [413, 5000, 'enrolments']);
    });
  });

  describe('every section, dry run and order', () => {
    const push = pusher(ctx);

    test('a dry run writes nothing, the calendar included; enrolments see stored terms only (spec 4.2 rule 3)', async () => {
      const tenant = await seedTenant(ctx());
      await insertStudents(ctx().db, tenant, [{ email: 'a@example.edu', student_id_ext: 'A1' }]);
      const everything = {
        programs: [{ program_code: 'NURS' }],
        campuses: [{ name: 'City' }],
        terms: [term('2026-S1')],
        units: [{ unit_code: 'NURS101', program_code: 'NURS', campus_name: 'City' }],
        enrolments: [{ email: 'a@example.edu', unit_code: 'NURS101', term_code: '2026-S1' }],
      };
      const dry = await push(tenant, { dry_run: true, ...everything });
      assert.equal(dry.statusCode, 200);
      const body = dry.json();
      assert.equal(body.dry_run, true);
      assert.equal(body.sections.programs.created, 1);
      assert.equal(body.sections.campuses.created, 1);
      assert.equal(body.sections.terms.created, 1);
      assert.deepEqual(codes(body.errors), [
        ['units', 0, 'program_not_found'],
        ['units', 0, 'campus_not_found'],
        ['enrolments', 0, 'unit_not_found'],
        ['enrolments', 0, 'term_not_found'],
      ]);
      for (const table of ['programs', 'campuses', 'audience_tags', 'terms', 'units', 'enrolments']) {
        assert.equal(await count(ctx(), table, tenant), 0, table);
      }

      // The suggested order: one real push of the taxonomy and calendar, then enrolments can be dry-run.
      const real = await push(tenant, { ...everything, enrolments: undefined });
      assert.deepEqual(real.json().errors, []);
      const dryEnrol = await push(tenant, { dry_run: true, enrolments: everything.enrolments });
      assert.deepEqual(dryEnrol.json().sections.enrolments, {
        received: 1,
        created: 1,
        updated: 0,
        unchanged: 0,
        rejected: 0,
      });
      assert.equal(await count(ctx(), 'enrolments', tenant), 0);
      const enrol = await push(tenant, { enrolments: everything.enrolments });
      assert.equal(enrol.json().sections.enrolments.created, 1);
      assert.equal(await count(ctx(), 'enrolments', tenant), 1);
    });

    test('a real run applies every section in dependency order in one request', async () => {
      const tenant = await seedTenant(ctx());
      await insertStudents(ctx().db, tenant, [{ email: 'b@example.edu', student_id_ext: 'B1' }]);
      // Sections listed in reverse order in the JSON: the order of application does not depend on it.
      const res = await ctx().request({
        method: 'POST',
        url,
        token: tenant.rosterSecret,
        body: {
          enrolments: [{ student_id_ext: 'B1', unit_code: 'LAW1', term_code: 'T1' }],
          units: [{ unit_code: 'LAW1', program_code: 'LAW', campus_name: 'North' }],
          terms: [term('T1')],
          campuses: [{ name: 'North' }],
          programs: [{ program_code: 'LAW' }],
          institution: tenant.slug,
        },
      });
      const body = res.json();
      assert.deepEqual(body.errors, []);
      assert.deepEqual(Object.keys(body.sections), ['programs', 'campuses', 'terms', 'units', 'enrolments']);
      for (const report of Object.values(body.sections) as { created: number }[])
        assert.equal(report.created, 1);
    });

    test('the same push sent twice at the same moment applies once', async () => {
      const tenant = await seedTenant(ctx());
      await insertStudents(
        ctx().db,
        tenant,
        Array.from({ length: 50 }, (_, i) => ({ email: `p${i}@example.edu`, student_id_ext: `P${i}` })),
      );
      const body = {
        programs: [{ program_code: 'SCI' }],
        campuses: [{ name: 'East' }],
        terms: [term('T1')],
        units: [{ unit_code: 'SCI1', program_code: 'SCI' }],
      };
      const [a, b] = await Promise.all([push(tenant, body), push(tenant, body)]);
      assert.deepEqual([a.statusCode, b.statusCode], [200, 200]);
      const enrolments = Array.from({ length: 50 }, (_, i) => ({
        student_id_ext: `P${i}`,
        unit_code: 'SCI1',
        term_code: 'T1',
      }));
      const results = await Promise.all([push(tenant, { enrolments }), push(tenant, { enrolments })]);
      const created = results.map((r) => r.json().sections.enrolments.created).sort();
      assert.deepEqual(created, [0, 50]);
      for (const table of ['programs', 'campuses', 'terms', 'units'])
        assert.equal(await count(ctx(), table, tenant), 1, table);
      assert.equal(await count(ctx(), 'audience_tags', tenant), 2);
      assert.equal(await count(ctx(), 'enrolments', tenant), 50);
    });

    test('admin listings need the operator token and a known institution', async () => {
      const tenant = await seedTenant(ctx());
      for (const path of ['terms', 'units', 'enrolments']) {
        const anonymous = await ctx().request({
          method: 'GET',
          url: `/admin/v1/institutions/${tenant.slug}/${path}`,
        });
        assert.equal(anonymous.statusCode, 401);
        const unknown = await ctx().admin('GET', `/admin/v1/institutions/no-such-place/${path}`);
        assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 'institution_not_found']);
        const empty = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/${path}?limit=5`);
        assert.deepEqual(empty.json(), { items: [], next_cursor: null });
      }
    });
  });
});
