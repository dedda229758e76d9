// Property-based tests of the roster sync request body: no input of any shape is a 5xx, and
// bad rows never block good rows nor leave the database in a state the next request trips on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rosterRowErrorCodes, validateRow } from '../../src/domain/roster/rows.ts';
import { describeEachDatabase, type SeededTenant, seedTenant, withoutRunId } from '../helpers/app.ts';

const URL = '/api/sis/sync';
const RUNS = 40;

// Single code units that have bitten text handling before: NUL and lone surrogates (which
// PostgreSQL cannot store), whitespace, quotes, and letters whose lower case differs by locale.
const hazard = fc.constantFrom(
  '\u0000',
  '\ud800',
  '\udfff',
  ' ',
  '\t',
  '@',
  '"',
  '\\',
  '\u2028',
  'İ',
  'ß',
  '\u212a',
);
const unit = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: hazard },
);
const anyString = fc.string({ unit, maxLength: 20 });
// Any JSON, with such strings (prototype-poisoning keys included: the parser drops them).
const anyJson = fc.jsonValue({ maxDepth: 3, stringUnit: unit });
const fieldValue = fc.oneof(
  anyJson,
  anyString,
  fc.constantFrom('true', 'false', 'TRUE', '2026-02-30', '2026-01-01', 'x@y.io', '', ' ', null),
);
// Keys that are often valid, so that the other fields of a row reach the database.
const emailValue = fc.oneof(
  fieldValue,
  anyString.map((s) => `a${s}@example.edu`),
  anyString.map((s) => `${s}@example.edu`),
);
const extValue = fc.oneof(
  fieldValue,
  anyString.map((s) => `X${s}`),
);
const rowFields = fc.record(
  {
    email: emailValue,
    student_id_ext: extValue,
    first_name: fieldValue,
    last_name: fieldValue,
    program_code: fieldValue,
    campus_name: fieldValue,
    campus_code: fieldValue,
    first_in_family: fieldValue,
    start_date: fieldValue,
  },
  { requiredKeys: ['email', 'student_id_ext'] },
);
// Rows whose every field is text: most reach the database.
const textRow = fc.record(
  {
    email: emailValue,
    student_id_ext: extValue,
    first_name: anyString,
    last_name: anyString,
    program_code: anyString,
    campus_name: anyString,
    campus_code: anyString,
    start_date: anyString,
  },
  { requiredKeys: ['email', 'student_id_ext'] },
);
const anyRow = fc.oneof(anyJson, rowFields, textRow);

describeEachDatabase('roster sync properties', (ctx) => {
  let tenant: SeededTenant;
  const send = (body: unknown) =>
    ctx().request({ method: 'POST', url: URL, body, token: tenant.rosterSecret });

  test('setup', async () => {
    tenant = await seedTenant(ctx());
    await ctx().db.query('INSERT INTO programs (institution_id, code) VALUES ($1, $2)', [
      tenant.institutionId,
      'P1',
    ]);
    await ctx().db.query('INSERT INTO campuses (institution_id, name) VALUES ($1, $2)', [
      tenant.institutionId,
      'C1',
    ]);
  });

  test('any JSON body is answered without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3, stringUnit: unit }), async (body) => {
        const res = await send(body);
        assert.ok([400, 404, 413].includes(res.statusCode), `${res.statusCode} ${res.body}`);
        assert.equal(typeof res.json().error, 'string');
      }),
      { numRuns: RUNS },
    );
  });

  test('any top-level field values are answered without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            cohort_id: fc.oneof(anyJson, fc.constant(tenant.cohortId)),
            students: fc.oneof(anyJson, fc.array(anyRow, { maxLength: 5 })),
            dry_run: anyJson,
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await send(body);
          assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('any rows in a valid envelope get 200, one error per rejected row, counts that add up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyRow, { maxLength: 12 }), fc.boolean(), async (students, dryRun) => {
        const res = await send({ cohort_id: tenant.cohortId, students, dry_run: dryRun });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.received, students.length);
        const rows: number[] = body.errors.map((e: { row: number }) => e.row);
        assert.deepEqual(
          rows,
          [...new Set(rows)].sort((a, b) => a - b),
          'errors are in row order, one per row',
        );
        for (const e of body.errors) {
          assert.ok(e.row >= 0 && e.row < students.length && e.message.length > 0);
          assert.ok(rosterRowErrorCodes.includes(e.code), `a documented code: ${JSON.stringify(e)}`);
          assert.ok(e.field === undefined || typeof e.field === 'string');
        }
        for (const w of body.warnings) assert.ok(['unknown_program_code', 'unknown_campus'].includes(w.code));
        if (dryRun) assert.equal(body.would_create + body.would_update + body.errors.length, students.length);
        else {
          assert.equal(body.imported, body.created + body.updated);
          assert.equal(body.imported + body.errors.length, students.length);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('any unknown top-level field is 400 unknown_field naming it, and nothing is written', async () => {
    const known = ['cohort_id', 'students', 'dry_run', 'sync_id', 'final_page'];
    const before = await ctx().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sis_runs WHERE institution_id = $1',
      [tenant.institutionId],
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyString,
          fc.constantFrom('dryRun', 'DRY_RUN', 'cohortId', 'student', 'finalPage', 'constructor'),
        ),
        anyJson,
        async (key, value) => {
          fc.pre(!known.includes(key) && key !== '__proto__');
          const body = {
            cohort_id: tenant.cohortId,
            students: [{ email: 'p@example.edu', student_id_ext: 'P' }],
          };
          const res = await send({ ...body, [key]: value });
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().error, 'unknown_field');
          assert.equal(res.json().field, key);
          const suggestion = res.json().suggestion;
          assert.ok(suggestion === undefined || known.includes(suggestion));
        },
      ),
      { numRuns: RUNS },
    );
    const after = await ctx().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sis_runs WHERE institution_id = $1',
      [tenant.institutionId],
    );
    assert.equal(after.rows[0].n, before.rows[0].n, 'no push was recorded');
  });

  test('raw bodies that are not JSON are 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyString,
        fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'),
        async (payload, type) => {
          const res = await ctx().app.inject({
            method: 'POST',
            url: URL,
            headers: { authorization: `Bearer ${tenant.rosterSecret}`, 'content-type': type },
            payload,
          });
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} ${res.body}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('bad rows never block good rows, and the next request finds a consistent database', async () => {
    let run = 0;
    const badRow = anyRow.filter((value) => !validateRow(value, 0).ok);
    const goodRow = fc.record(
      {
        first_name: fc.string({ maxLength: 10 }),
        program_code: fc.constantFrom('P1', 'p1', 'unknown'),
        campus_name: fc.constantFrom('C1', 'c1', 'elsewhere'),
        first_in_family: fc.constantFrom(true, false, 'true', 'false'),
        start_date: fc.constantFrom('2026-01-05', '2026-02-30', 'later'),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            goodRow.map((g) => ({ good: true as const, g })),
            badRow.map((b) => ({ good: false as const, b })),
          ),
          {
            maxLength: 20,
          },
        ),
        async (mix) => {
          const prefix = `p${++run}-${Date.now()}`;
          let n = 0;
          const students = mix.map((m) =>
            m.good
              ? { ...m.g, email: `${prefix}-${++n}@Example.edu`, student_id_ext: `${prefix}-${n}` }
              : m.b,
          );
          const goodPositions = mix.flatMap((m, i) => (m.good ? [i] : []));
          const badPositions = mix.flatMap((m, i) => (m.good ? [] : [i]));

          const first = await send({ cohort_id: tenant.cohortId, students });
          assert.equal(first.statusCode, 200, first.body);
          assert.equal(first.json().created, goodPositions.length);
          assert.equal(first.json().imported, goodPositions.length);
          assert.deepEqual(
            first.json().errors.map((e: { row: number }) => e.row),
            badPositions,
          );

          const goods = goodPositions.map((i) => students[i]);
          const again = await send({ cohort_id: tenant.cohortId, students: goods });
          const { warnings, ...counts } = withoutRunId(again.json());
          assert.deepEqual(counts, {
            received: goods.length,
            created: 0,
            updated: goods.length,
            imported: goods.length,
            errors: [],
          });
          // Unknown program and campus values are warnings naming good rows only.
          for (const w of warnings) for (const r of w.rows) assert.ok(r < goods.length);
          const { rows } = await ctx().db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM students WHERE institution_id = $1 AND student_id_ext LIKE $2`,
            [tenant.institutionId, `${prefix}-%`],
          );
          assert.equal(rows[0].n, goods.length);
        },
      ),
      { numRuns: 30 },
    );
  });
});
