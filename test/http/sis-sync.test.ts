import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db, Queryable } from '../../src/db/db.ts';
import type { StudentListing } from '../../src/domain/institutions/schemas.ts';
import { syncRoster } from '../../src/domain/roster/sync.ts';
import { systemClock } from '../../src/lib/clock.ts';
import {
  describeEachDatabase,
  type SeededTenant,
  seedTenant,
  type TestContext,
  withoutRunId,
} from '../helpers/app.ts';

const URL = '/api/sis/sync';

/** A push applied whole, with no error or warning: `created` new students and `updated` known ones. */
function assertApplied(res: { json(): { run_id?: unknown } }, created: number, updated: number): void {
  const received = created + updated;
  assert.deepEqual(withoutRunId(res.json()), {
    received,
    created,
    updated,
    imported: received,
    errors: [],
    warnings: [],
  });
}

/** A student as stored, read as the students listing shows them (the row's own time as a Date). */
type StoredStudent = Omit<StudentListing, 'departed_at' | 'created_at' | 'updated_at'> & { updated_at: Date };

export function rosterHelpers(ctx: () => TestContext) {
  const sync = (tenant: SeededTenant, body: unknown, token = tenant.rosterSecret) =>
    ctx().request({ method: 'POST', url: URL, body, token });

  const students = async (tenant: SeededTenant): Promise<StoredStudent[]> =>
    (
      await ctx().db.query<StoredStudent>(
        `SELECT s.id, s.cohort_id, s.email, s.student_id_ext, s.first_name, s.last_name,
                p.code AS program_code, c.name AS campus_name, s.first_in_family,
                to_char(s.start_date, 'YYYY-MM-DD') AS start_date, s.updated_at
         FROM students s
         LEFT JOIN programs p ON p.id = s.program_id
         LEFT JOIN campuses c ON c.id = s.campus_id
         WHERE s.institution_id = $1 ORDER BY s.student_id_ext`,
        [tenant.institutionId],
      )
    ).rows;

  const addProgram = (tenant: SeededTenant, code: string) =>
    ctx().db.query('INSERT INTO programs (institution_id, code, name) VALUES ($1, $2, $2)', [
      tenant.institutionId,
      code,
    ]);
  const addCampus = (tenant: SeededTenant, name: string) =>
    ctx().db.query('INSERT INTO campuses (institution_id, name) VALUES ($1, $2)', [
      tenant.institutionId,
      name,
    ]);
  const addCohort = async (tenant: SeededTenant) => {
    const res = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/cohorts`, {
      name: 'Cohort B',
    });
    return res.json().id as string;
  };
  return { sync, students, addProgram, addCampus, addCohort };
}

const row = (n: number, extra: Record<string, unknown> = {}) => ({
  email: `student${n}@example.edu`,
  student_id_ext: `S${String(n).padStart(5, '0')}`,
  ...extra,
});

describeEachDatabase('roster sync', (ctx) => {
  const { sync, students, addProgram, addCampus, addCohort } = rosterHelpers(ctx);

  test('creates students; the response has exactly received, created, updated, imported, errors', async () => {
    const tenant = await seedTenant(ctx());
    await addProgram(tenant, 'BSci');
    await addCampus(tenant, 'City Campus');
    await addCampus(tenant, 'North');
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [
        row(1, {
          first_name: 'Ana',
          last_name: 'Lima',
          program_code: 'bsci',
          campus_name: 'CITY CAMPUS',
          first_in_family: 'true',
          start_date: '2026-02-23',
        }),
        row(2, { campus_code: 'north', first_in_family: false }),
        row(3, { first_in_family: 'FALSE' }),
      ],
    });
    assert.equal(res.statusCode, 200);
    assertApplied(res, 3, 0);
    const stored = await students(tenant);
    assert.equal(stored.length, 3);
    assert.deepEqual(
      stored.map((s) => [
        s.email,
        s.first_name,
        s.program_code,
        s.campus_name,
        s.first_in_family,
        s.start_date,
      ]),
      [
        ['student1@example.edu', 'Ana', 'BSci', 'City Campus', true, '2026-02-23'],
        ['student2@example.edu', null, null, 'North', false, null],
        ['student3@example.edu', null, null, null, false, null],
      ],
    );
    assert.ok(stored.every((s) => s.cohort_id === tenant.cohortId));
  });

  test('100 rows with 10 bad: 90 imported, 10 errors with 0-based row positions and messages', async () => {
    const tenant = await seedTenant(ctx());
    const bad: unknown[] = [
      'a string',
      null,
      42,
      [row(900)],
      { student_id_ext: 'X1' },
      { email: 'x2@example.edu' },
      { email: 7, student_id_ext: 'X3' },
      { email: 'x4@example.edu', student_id_ext: { id: 1 } },
      { email: 'x5@example.edu', student_id_ext: 'X5', first_in_family: 'yes' },
      { email: 'x6@example.edu', student_id_ext: 'X6', first_name: 12 },
    ];
    const rows: unknown[] = [];
    const badPositions: number[] = [];
    for (let i = 0; i < 100; i++) {
      if (i % 10 === 3) {
        badPositions.push(i);
        rows.push(bad[badPositions.length - 1]);
      } else rows.push(row(i));
    }
    const res = await sync(tenant, { cohort_id: tenant.cohortId, students: rows });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.received, 100);
    assert.equal(body.created, 90);
    assert.equal(body.imported, 90);
    assert.deepEqual(
      body.errors.map((e: { row: number }) => e.row),
      badPositions,
    );
    const messages = body.errors.map((e: { message: string }) => e.message);
    assert.deepEqual(messages.slice(0, 4), [
      'The row must be an object (got string)',
      'The row must be an object (got null)',
      'The row must be an object (got number)',
      'The row must be an object (got array)',
    ]);
    assert.equal(messages[4], 'The email is missing');
    assert.equal(messages[5], 'The student ID is missing');
    assert.equal(messages[6], 'The email must be text (got number)');
    assert.equal(messages[7], 'The student ID must be text (got object)');
    assert.match(messages[8], /First in family must be true/);
    assert.equal(messages[9], 'The first name must be text (got number)');
    // Each entry also carries a stable code and the field at fault.
    assert.deepEqual(
      body.errors.map((e: { code: string; field?: string }) => [e.code, e.field]),
      [
        ['invalid_row', undefined],
        ['invalid_row', undefined],
        ['invalid_row', undefined],
        ['invalid_row', undefined],
        ['missing_field', 'email'],
        ['missing_field', 'student_id_ext'],
        ['invalid_field', 'email'],
        ['invalid_field', 'student_id_ext'],
        ['invalid_field', 'first_in_family'],
        ['invalid_field', 'first_name'],
      ],
    );
    assert.equal((await students(tenant)).length, 90);
  });

  test('re-sending the same page updates in place; overlapping pages never duplicate', async () => {
    const tenant = await seedTenant(ctx());
    const page1 = Array.from({ length: 30 }, (_, i) => row(i, { first_name: `F${i}` }));
    const first = await sync(tenant, { cohort_id: tenant.cohortId, students: page1 });
    assertApplied(first, 30, 0);
    const before = await students(tenant);

    const again = await sync(tenant, { cohort_id: tenant.cohortId, students: page1 });
    assertApplied(again, 0, 30);
    const after = await students(tenant);
    assert.deepEqual(after, before, 'an identical re-send changes nothing, not even updated_at');

    const page2 = Array.from({ length: 30 }, (_, i) => row(i + 20, { first_name: `G${i + 20}` }));
    const overlap = await sync(tenant, { cohort_id: tenant.cohortId, students: page2 });
    assertApplied(overlap, 20, 10);
    const all = await students(tenant);
    assert.equal(all.length, 50);
    assert.equal(all.find((s) => s.student_id_ext === 'S00025')?.first_name, 'G25');
    assert.equal(all.find((s) => s.student_id_ext === 'S00005')?.first_name, 'F5');
  });

  test('the same page sent twice at the same moment neither fails nor duplicates', async () => {
    const tenant = await seedTenant(ctx());
    const page = Array.from({ length: 200 }, (_, i) => row(i));
    const [a, b, c] = await Promise.all([
      sync(tenant, { cohort_id: tenant.cohortId, students: page }),
      sync(tenant, { cohort_id: tenant.cohortId, students: page }),
      sync(tenant, { cohort_id: tenant.cohortId, students: page }),
    ]);
    for (const res of [a, b, c]) {
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().imported, 200);
      assert.deepEqual(res.json().errors, []);
    }
    assert.equal(a.json().created + b.json().created + c.json().created, 200);
    assert.equal((await students(tenant)).length, 200);
  });

  test('matches by email case-insensitively, then by student_id_ext; an email change updates the same student', async () => {
    const tenant = await seedTenant(ctx());
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1), row(2)] });
    const [one, two] = await students(tenant);

    const byEmail = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [{ email: 'STUDENT1@Example.EDU', student_id_ext: 'S00001', last_name: 'Upper' }],
    });
    assertApplied(byEmail, 0, 1);

    const newEmail = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [{ email: 'renamed@example.edu', student_id_ext: 'S00002' }],
    });
    assertApplied(newEmail, 0, 1);

    // Matched by email, the student's external id changes (no other student holds it).
    const newExt = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [{ email: 'renamed@example.edu', student_id_ext: 'S-NEW' }],
    });
    assert.equal(newExt.json().updated, 1);

    const stored = await students(tenant);
    assert.equal(stored.length, 2);
    const first = stored.find((s) => s.id === one.id);
    const second = stored.find((s) => s.id === two.id);
    assert.equal(first?.email, 'STUDENT1@Example.EDU');
    assert.equal(first?.last_name, 'Upper');
    assert.equal(second?.email, 'renamed@example.edu');
    assert.equal(second?.student_id_ext, 'S-NEW');
  });

  test('a row whose email and student_id_ext point at two different students is an error, never a merge', async () => {
    const tenant = await seedTenant(ctx());
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1), row(2)] });
    const before = await students(tenant);
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [row(3), { email: 'student1@example.edu', student_id_ext: 'S00002', first_name: 'Merged?' }],
    });
    const body = res.json();
    assert.equal(body.created, 1);
    assert.equal(body.updated, 0);
    assert.equal(body.errors.length, 1);
    assert.equal(body.errors[0].row, 1);
    assert.match(
      body.errors[0].message,
      /email belongs to one existing student and student_id_ext to another/,
    );
    assert.deepEqual([body.errors[0].code, body.errors[0].field], ['student_conflict', 'student_id_ext']);
    const after = await students(tenant);
    assert.equal(after.length, 3);
    assert.deepEqual(
      after.filter((s) => s.student_id_ext !== 'S00003'),
      before,
    );
  });

  test('duplicates inside one batch: the first occurrence wins, later ones are row errors', async () => {
    const tenant = await seedTenant(ctx());
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [
        row(1, { first_name: 'First' }),
        { email: 'STUDENT1@example.edu', student_id_ext: 'OTHER', first_name: 'Second' },
        { email: 'other@example.edu', student_id_ext: 'S00001' },
        row(2),
        row(2),
      ],
    });
    const body = res.json();
    assert.equal(body.created, 2);
    assert.deepEqual(
      body.errors.map((e: { row: number }) => e.row),
      [1, 2, 4],
    );
    assert.match(body.errors[0].message, /Email already in this batch: row 0 has the same email/);
    assert.match(body.errors[1].message, /Student ID already in this batch: row 0 has the same student ID/);
    assert.match(body.errors[2].message, /Email already.*row 3.*student ID already.*row 3/);
    assert.deepEqual(
      body.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
      [
        ['duplicate_key', 'email'],
        ['duplicate_key', 'student_id_ext'],
        ['duplicate_key', 'email'],
      ],
    );
    const stored = await students(tenant);
    assert.deepEqual(
      stored.map((s) => [s.email, s.first_name]),
      [
        ['student1@example.edu', 'First'],
        ['student2@example.edu', null],
      ],
    );
  });

  test('two rows reaching the same stored student: the first wins, the later is an error', async () => {
    const tenant = await seedTenant(ctx());
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1)] });
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [
        { email: 'new@example.edu', student_id_ext: 'S00001' },
        { email: 'student1@example.edu', student_id_ext: 'S77777' },
      ],
    });
    const body = res.json();
    assert.equal(body.updated, 1);
    assert.equal(body.created, 0);
    assert.deepEqual(body.errors.length, 1);
    assert.equal(body.errors[0].row, 1);
    assert.match(body.errors[0].message, /same existing student as row 0/);
    assert.deepEqual([body.errors[0].code, body.errors[0].field], ['duplicate_student', 'email']);
    const stored = await students(tenant);
    assert.deepEqual(
      stored.map((s) => [s.email, s.student_id_ext]),
      [['new@example.edu', 'S00001']],
    );
  });

  test('unknown program and campus leave the field unset; a corrected re-send fills it; unknown never clears', async () => {
    const tenant = await seedTenant(ctx());
    await addProgram(tenant, 'BSCI');
    await addCampus(tenant, 'City');
    const first = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [row(1, { program_code: 'NOPE', campus_name: 'Nowhere' }), row(2)],
    });
    assert.deepEqual(first.json().errors, []);
    assert.deepEqual(
      (await students(tenant)).map((s) => [s.program_code, s.campus_name]),
      [
        [null, null],
        [null, null],
      ],
    );

    await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [row(1, { program_code: 'bsci', campus_code: 'city' }), row(2, { campus_name: 'CITY' })],
    });
    assert.deepEqual(
      (await students(tenant)).map((s) => [s.program_code, s.campus_name]),
      [
        ['BSCI', 'City'],
        [null, 'City'],
      ],
    );

    // An unrecognised value, or none, keeps what is stored.
    await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [row(1, { program_code: 'TYPO', campus_name: 'Typo' }), row(2, { campus_name: null })],
    });
    assert.deepEqual(
      (await students(tenant)).map((s) => [s.program_code, s.campus_name]),
      [
        ['BSCI', 'City'],
        [null, 'City'],
      ],
    );
  });

  test('campus: campus_name is tried first, then campus_code; both unknown leaves it unset', async () => {
    const tenant = await seedTenant(ctx());
    await addCampus(tenant, 'North');
    await addCampus(tenant, 'South');
    await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [
        row(1, { campus_name: 'south', campus_code: 'north' }),
        row(2, { campus_name: 'Old name', campus_code: 'NORTH' }),
        row(3, { campus_name: 'Old name', campus_code: 'nowhere' }),
      ],
    });
    assert.deepEqual(
      (await students(tenant)).map((s) => s.campus_name),
      ['South', 'North', null],
    );
  });

  test('first_in_family omitted keeps the stored value; invalid values are row errors', async () => {
    const tenant = await seedTenant(ctx());
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1, { first_in_family: true }), row(2)] });
    await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [row(1), row(2, { first_in_family: 'false' })],
    });
    assert.deepEqual(
      (await students(tenant)).map((s) => s.first_in_family),
      [true, false],
    );
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [row(1, { first_in_family: 'no' }), row(2, { first_in_family: 1 })],
    });
    assert.equal(res.json().imported, 0);
    assert.equal(res.json().errors.length, 2);
    assert.deepEqual(
      (await students(tenant)).map((s) => s.first_in_family),
      [true, false],
    );
  });

  test('an invalid start_date is ignored, never an error, and keeps the stored date', async () => {
    const tenant = await seedTenant(ctx());
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1, { start_date: '2026-02-23' })] });
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: [
        row(1, { start_date: '2026-02-30' }),
        row(2, { start_date: 'soon' }),
        row(3, { start_date: 5 }),
      ],
    });
    assertApplied(res, 2, 1);
    assert.deepEqual(
      (await students(tenant)).map((s) => s.start_date),
      ['2026-02-23', null, null],
    );
  });

  test('students belong to the cohort they were last pushed with', async () => {
    const tenant = await seedTenant(ctx());
    const cohortB = await addCohort(tenant);
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1), row(2)] });
    const res = await sync(tenant, { cohort_id: cohortB, students: [row(2), row(3)] });
    assertApplied(res, 1, 1);
    assert.deepEqual(
      (await students(tenant)).map((s) => s.cohort_id),
      [tenant.cohortId, cohortB, cohortB],
    );
  });

  test('dry run validates everything, writes nothing and reports what a push would do', async () => {
    const tenant = await seedTenant(ctx());
    await addProgram(tenant, 'BSCI');
    await addCampus(tenant, 'City');
    await sync(tenant, { cohort_id: tenant.cohortId, students: [row(1)] });
    const before = await students(tenant);
    const res = await sync(tenant, {
      cohort_id: tenant.cohortId,
      dry_run: true,
      students: [
        row(1, { first_name: 'Changed', program_code: 'bsci' }),
        row(2, { program_code: 'XX', campus_name: 'Moon', start_date: '2026-02-30' }),
        row(3, { program_code: 'xx', campus_code: 'Mars' }),
        { email: 'STUDENT2@example.edu', student_id_ext: 'S99999' },
        { email: 'nobody' },
        row(4, { start_date: 20260101 }),
        row(5, { campus_name: 'city' }),
      ],
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(withoutRunId(res.json()), {
      received: 7,
      created: 0,
      updated: 0,
      imported: 0,
      errors: [
        {
          row: 3,
          email: 'STUDENT2@example.edu',
          student_id_ext: 'S99999',
          code: 'duplicate_key',
          field: 'email',
          message: 'Email already in this batch: row 1 has the same email',
        },
        {
          row: 4,
          email: 'nobody',
          student_id_ext: null,
          code: 'invalid_field',
          field: 'email',
          message: '"nobody" is not an email address; the student ID is missing',
        },
      ],
      warnings: [
        {
          code: 'unknown_program_code',
          field: 'program_code',
          value: 'XX',
          rows: [1, 2],
          message: 'no program has the code "XX"; the rows imported without a program (a stored one is kept)',
        },
        {
          code: 'unknown_campus',
          field: 'campus_name',
          value: 'Moon',
          rows: [1],
          message: 'no campus is named "Moon"; the rows imported without a campus (a stored one is kept)',
        },
        {
          code: 'unknown_campus',
          field: 'campus_code',
          value: 'Mars',
          rows: [2],
          message: 'no campus is named "Mars"; the rows imported without a campus (a stored one is kept)',
        },
      ],
      dry_run: true,
      would_create: 4,
      would_update: 1,
      unknown_program_codes: [{ value: 'XX', rows: [1, 2] }],
      unknown_campus_values: [
        { value: 'Moon', rows: [1] },
        { value: 'Mars', rows: [2] },
      ],
      duplicate_emails: [{ value: 'student2@example.edu', rows: [1, 3] }],
      duplicate_student_id_exts: [],
      bad_dates: [
        { row: 1, value: '2026-02-30' },
        { row: 5, value: '20260101' },
      ],
    });
    assert.deepEqual(await students(tenant), before);
  });

  test('a page costs a fixed number of queries whatever its size', async () => {
    const tenant = await seedTenant(ctx());
    let count = 0;
    const counting = (q: Queryable): Queryable => ({
      query: (sql, params) => {
        count++;
        return q.query(sql, params);
      },
    });
    const db = ctx().db;
    const countingDb: Db = {
      ...db,
      query: counting(db).query,
      transaction: (fn) => db.transaction((tx) => fn(counting(tx))),
    };
    const deps = { db: countingDb, clock: systemClock, config: { departureHoldThreshold: 0.1 } };
    const cost = async (from: number, n: number, name = 'A') => {
      count = 0;
      const result = await syncRoster(deps, {
        institutionId: tenant.institutionId,
        cohortId: tenant.cohortId,
        students: Array.from({ length: n }, (_, i) => row(from + i, { first_name: name })),
        dryRun: false,
        credential: 'institution_secret',
      });
      assert.equal(result.imported, n);
      return count;
    };
    const small = await cost(0, 5);
    const large = await cost(1000, 500);
    assert.equal(small, large);
    // Mixed creates and updates: the lock, the one statement that matches, decides and writes,
    // and the run, in the same transaction.
    assert.equal(await cost(900, 200, 'B'), 3);
    // Nothing changes: the same three.
    assert.equal(await cost(900, 200, 'B'), 3);
  });

  test('the schema refuses a student whose cohort belongs to another institution', async () => {
    const mine = await seedTenant(ctx());
    const theirs = await seedTenant(ctx());
    await assert.rejects(
      ctx().db.query(
        `INSERT INTO students (institution_id, cohort_id, email, student_id_ext) VALUES ($1, $2, 'x@y.io', 'X')`,
        [mine.institutionId, theirs.cohortId],
      ),
      (error: { code?: string }) => error.code === '23503',
    );
  });

  test('envelope: missing and mistyped top-level fields are 400 with the field named', async () => {
    const tenant = await seedTenant(ctx());
    const cases: [unknown, number, string, string][] = [
      [{ students: [] }, 400, 'missing_field', 'cohort_id'],
      [{ cohort_id: tenant.cohortId }, 400, 'missing_field', 'students'],
      [{ cohort_id: 5, students: [] }, 400, 'invalid_field', 'cohort_id'],
      [{ cohort_id: tenant.cohortId, students: {} }, 400, 'invalid_field', 'students'],
      [{ cohort_id: tenant.cohortId, students: 'x' }, 400, 'invalid_field', 'students'],
      [{ cohort_id: tenant.cohortId, students: [], dry_run: 'yes' }, 400, 'invalid_field', 'dry_run'],
      [[], 400, 'invalid_field', 'body'],
      ['text', 400, 'invalid_field', 'body'],
      [null, 400, 'invalid_field', 'body'],
    ];
    for (const [body, status, error, field] of cases) {
      const res = await sync(tenant, body);
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(res.json().error, error, JSON.stringify(body));
      assert.equal(res.json().field, field, JSON.stringify(body));
    }
  });

  test('more than 5000 students is 413 batch_too_large with max; exactly 5000 is accepted', async () => {
    const tenant = await seedTenant(ctx());
    const tooMany = await sync(tenant, {
      cohort_id: tenant.cohortId,
      students: Array.from({ length: 5001 }, () => 1),
    });
    assert.equal(tooMany.statusCode, 413);
    assert.equal(tooMany.json().error, 'batch_too_large');
    assert.equal(tooMany.json().max, 5000);
    const fine = await sync(tenant, {
      cohort_id: tenant.cohortId,
      dry_run: true,
      students: Array.from({ length: 5000 }, (_, i) => row(i)),
    });
    assert.equal(fine.statusCode, 200);
    assert.equal(fine.json().would_create, 5000);
  });

  test('bodies that are not JSON get clear 4xx codes', async () => {
    const tenant = await seedTenant(ctx());
    const send = (payload: string | undefined, contentType?: string) =>
      ctx().app.inject({
        method: 'POST',
        url: URL,
        headers: {
          authorization: `Bearer ${tenant.rosterSecret}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        payload,
      });
    const truncated = await send('{"cohort_id": "x", "students": [', 'application/json');
    assert.equal(truncated.statusCode, 400);
    assert.equal(truncated.json().error, 'malformed_json');
    const empty = await send('', 'application/json');
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().error, 'empty_body');
    const text = await send(JSON.stringify({ cohort_id: tenant.cohortId, students: [] }), 'text/plain');
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().error, 'unsupported_media_type');
    const form = await send('a=b', 'application/x-www-form-urlencoded');
    assert.equal(form.statusCode, 415);
    // Prototype-poisoning keys are dropped: the row without them is simply incomplete.
    const poisoned = await send(
      `{"cohort_id": "${tenant.cohortId}", "students": [{"__proto__": {"x": 1}}]}`,
      'application/json',
    );
    assert.equal(poisoned.statusCode, 200);
    assert.equal(poisoned.json().errors.length, 1);
    const none = await send(undefined);
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().error, 'empty_body');
  });

  test('authentication: missing, wrong and revoked secrets are 401 before the cohort is looked at', async () => {
    const tenant = await seedTenant(ctx());
    const body = { cohort_id: tenant.cohortId, students: [row(1)] };
    const missing = await ctx().request({ method: 'POST', url: URL, body });
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().error, 'unauthorized');
    const wrong = await sync(tenant, body, `${tenant.rosterSecret}x`);
    assert.equal(wrong.statusCode, 401);
    const basic = await ctx().request({
      method: 'POST',
      url: URL,
      body,
      headers: { authorization: 'Basic abc' },
    });
    assert.equal(basic.statusCode, 401);
    // A wrong secret with a cohort that does not exist, or a body that is not JSON, is still 401.
    const unknownCohort = await sync(
      tenant,
      { cohort_id: '00000000-0000-4000-8000-000000000000', students: [] },
      'wrong',
    );
    assert.equal(unknownCohort.statusCode, 401);
    const notJson = await ctx().app.inject({
      method: 'POST',
      url: URL,
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
      payload: '{',
    });
    assert.equal(notJson.statusCode, 401);

    assert.equal(
      (await ctx().admin('DELETE', `/admin/v1/institutions/${tenant.slug}/roster-secret`)).statusCode,
      204,
    );
    const revoked = await sync(tenant, body);
    assert.equal(revoked.statusCode, 401);
    assert.equal(revoked.json().error, 'unauthorized');

    const reissued = (await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/roster-secret`)).json()
      .secret as string;
    assert.equal((await sync(tenant, body, reissued)).statusCode, 200);
    assert.equal((await students(tenant)).length, 1);
  });

  test("another institution's cohort, an unknown cohort and a non-UUID cohort_id are 404 cohort_not_found", async () => {
    const mine = await seedTenant(ctx());
    const theirs = await seedTenant(ctx());
    for (const cohortId of [
      theirs.cohortId,
      '00000000-0000-4000-8000-000000000000',
      'not-a-uuid',
      '',
      '\u0000',
    ]) {
      const res = await sync(mine, { cohort_id: cohortId, students: [row(1)] });
      assert.equal(res.statusCode, 404, cohortId);
      assert.equal(res.json().error, 'cohort_not_found');
    }
    assert.equal((await students(theirs)).length, 0);
    assert.equal((await students(mine)).length, 0);
  });

  test('the OpenAPI document describes the endpoint with examples', async () => {
    const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/sis/sync'].post;
    assert.match(op.description, /0-based/);
    const media = op.requestBody.content['application/json'];
    assert.ok(
      Object.keys(media.examples ?? {}).length > 0 || media.example,
      JSON.stringify(media).slice(0, 200),
    );
    const ok = op.responses['200'].content['application/json'];
    assert.ok(Object.keys(ok.examples ?? {}).length > 0 || ok.example);
    for (const status of ['400', '401', '404', '413', '429', '503']) assert.ok(op.responses[status], status);
  });
});

describeEachDatabase(
  'roster sync with the bootstrap secret',
  (ctx) => {
    const { sync, students } = rosterHelpers(ctx);
    const BOOTSTRAP = 'bootstrap-secret-for-tests-0123456789';

    test('reaches institutions never issued a secret, and only those', async () => {
      const fresh = await seedTenant(ctx(), { rosterSecret: false });
      const res = await sync(fresh, { cohort_id: fresh.cohortId, students: [row(1)] }, BOOTSTRAP);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().created, 1);

      const own = await seedTenant(ctx());
      const refused = await sync(own, { cohort_id: own.cohortId, students: [row(1)] }, BOOTSTRAP);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error, 'unauthorized');
      assert.equal((await sync(own, { cohort_id: own.cohortId, students: [row(1)] })).statusCode, 200);
    });

    test('a revoked institution secret closes the feed with no fallback to the bootstrap secret', async () => {
      const tenant = await seedTenant(ctx());
      await ctx().admin('DELETE', `/admin/v1/institutions/${tenant.slug}/roster-secret`);
      const body = { cohort_id: tenant.cohortId, students: [row(1)] };
      assert.equal((await sync(tenant, body)).statusCode, 401);
      const viaBootstrap = await sync(tenant, body, BOOTSTRAP);
      assert.equal(viaBootstrap.statusCode, 401);
      assert.equal(viaBootstrap.json().error, 'unauthorized');
      assert.equal((await students(tenant)).length, 0);
    });

    test('an institution secret never reaches an institution that uses the bootstrap secret', async () => {
      const fresh = await seedTenant(ctx(), { rosterSecret: false });
      const other = await seedTenant(ctx());
      const res = await sync(fresh, { cohort_id: fresh.cohortId, students: [row(1)] }, other.rosterSecret);
      assert.equal(res.statusCode, 404);
    });
  },
  { env: { BOOTSTRAP_ROSTER_SECRET: 'bootstrap-secret-for-tests-0123456789' } },
);

describeEachDatabase('roster sync with no secret configured anywhere', (ctx) => {
  const { sync } = rosterHelpers(ctx);
  test('503 not_configured until a secret exists, then 401 for a wrong one', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const body = { cohort_id: tenant.cohortId, students: [row(1)] };
    for (const token of [undefined, 'anything-at-all']) {
      const res = await sync(tenant, body, token);
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error, 'not_configured');
    }
    await seedTenant(ctx());
    const wrong = await sync(tenant, body, 'anything-at-all');
    assert.equal(wrong.statusCode, 401);
  });
});
