// The enrolments listing reads a page as a walk over (term, unit) pairs (enrolment-listing.ts).
// Property: for any enrolments (sparse pairs, terms sharing a start date, mixed-case codes and
// emails), any filters and any page size, the pages read one after another are exactly the
// matching enrolments in the documented order (term start date, term code, unit code, email).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

interface Seed {
  terms: { code: string; start: string }[];
  units: string[];
  students: string[];
  enrolments: { student: number; unit: number; term: number; status: string }[];
}

const statuses = ['enrolled', 'withdrawn', 'completed'];

const seedArbitrary: fc.Arbitrary<Seed> = fc
  .record({
    terms: fc.uniqueArray(
      fc.record({
        code: fc.constantFrom('T1', 't2', 'T3', 'S1', 's2', 'X'),
        start: fc.constantFrom('2026-02-01', '2026-07-01', '2027-02-01'),
      }),
      { minLength: 1, maxLength: 4, selector: (t) => t.code.toLowerCase() },
    ),
    units: fc.uniqueArray(fc.constantFrom('U1', 'u2', 'U3', 'a9', 'B1', 'b2', 'Z'), {
      minLength: 1,
      maxLength: 6,
      selector: (u) => u.toLowerCase(),
    }),
    students: fc.uniqueArray(fc.constantFrom('ana', 'Ben', 'cy', 'Dee', 'eve', 'Fay', 'gus', 'Hal'), {
      minLength: 1,
      maxLength: 8,
      selector: (s) => s.toLowerCase(),
    }),
  })
  .chain((base) =>
    fc
      .uniqueArray(
        fc.record({
          student: fc.nat(base.students.length - 1),
          unit: fc.nat(base.units.length - 1),
          term: fc.nat(base.terms.length - 1),
          status: fc.constantFrom(...statuses),
        }),
        { maxLength: 40, selector: (e) => `${e.student}/${e.unit}/${e.term}` },
      )
      .map((enrolments) => ({ ...base, enrolments })),
  );

const filterArbitrary = fc.record(
  {
    term: fc.nat(3),
    unit: fc.nat(5),
    status: fc.constantFrom(...statuses),
    student: fc.nat(7),
  },
  { requiredKeys: [] },
);

describeEachDatabase('enrolments listing', (ctx) => {
  test('property: the pages together are the matching enrolments, in order, once', async () => {
    await fc.assert(
      fc.asyncProperty(
        seedArbitrary,
        filterArbitrary,
        fc.integer({ min: 1, max: 7 }),
        async (seed, pick, limit) => {
          const tenant = await seedTenant(ctx(), { rosterSecret: false });
          const db = ctx().db;
          const id = tenant.institutionId;
          const { rows: terms } = await db.query<{ id: string }>(
            `INSERT INTO terms (institution_id, code, start_date, end_date)
           SELECT $1, t.code, t.start::date, t.start::date + 90
           FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(code, start, n)
           ORDER BY t.n RETURNING id`,
            [id, seed.terms.map((t) => t.code), seed.terms.map((t) => t.start)],
          );
          const { rows: units } = await db.query<{ id: string }>(
            `INSERT INTO units (institution_id, code)
           SELECT $1, u.code FROM unnest($2::text[]) WITH ORDINALITY AS u(code, n) ORDER BY u.n RETURNING id`,
            [id, seed.units],
          );
          const { rows: students } = await db.query<{ id: string }>(
            `INSERT INTO students (institution_id, cohort_id, email, student_id_ext)
           SELECT $1, $2, s.name || '@example.edu', 'X-' || s.n
           FROM unnest($3::text[]) WITH ORDINALITY AS s(name, n) ORDER BY s.n RETURNING id`,
            [id, tenant.cohortId, seed.students],
          );
          const { rows: enrolled } = await db.query<{ id: string }>(
            `INSERT INTO enrolments (institution_id, student_id, unit_id, term_id, status)
           SELECT $1, e.student_id, e.unit_id, e.term_id, e.status
           FROM json_to_recordset($2::json) AS e(student_id uuid, unit_id uuid, term_id uuid, status text)
           RETURNING id`,
            [
              id,
              JSON.stringify(
                seed.enrolments.map((e) => ({
                  student_id: students[e.student].id,
                  unit_id: units[e.unit].id,
                  term_id: terms[e.term].id,
                  status: e.status,
                })),
              ),
            ],
          );

          // What the listing should answer, worked out here.
          const term = pick.term !== undefined ? seed.terms[pick.term] : undefined;
          const unit = pick.unit !== undefined ? seed.units[pick.unit] : undefined;
          const student = pick.student !== undefined ? seed.students[pick.student] : undefined;
          const expected = seed.enrolments
            .map((e, i) => ({ ...e, id: enrolled[i].id }))
            .filter(
              (e) =>
                (!term || seed.terms[e.term] === term) &&
                (!unit || seed.units[e.unit] === unit) &&
                (!student || seed.students[e.student] === student) &&
                (!pick.status || e.status === pick.status),
            )
            .map((e) => {
              const t = seed.terms[e.term];
              return {
                id: e.id,
                key: [
                  t.start,
                  t.code.toLowerCase(),
                  seed.units[e.unit].toLowerCase(),
                  seed.students[e.student].toLowerCase(),
                ],
              };
            })
            .sort((a, b) => {
              for (let k = 0; k < 4; k++) if (a.key[k] !== b.key[k]) return a.key[k] < b.key[k] ? -1 : 1;
              return 0;
            })
            .map((e) => e.id);

          const params = new URLSearchParams({ limit: String(limit) });
          if (term) params.set('term_code', term.code.toUpperCase());
          if (unit) params.set('unit_code', unit.toLowerCase());
          if (student) params.set('email', `${student.toUpperCase()}@example.edu`);
          if (pick.status) params.set('status', pick.status);
          const seen: string[] = [];
          let cursor: string | null = null;
          for (let pages = 0; pages <= expected.length + 1; pages++) {
            const res = await ctx().admin(
              'GET',
              `/admin/v1/institutions/${tenant.slug}/enrolments?${params}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            );
            assert.equal(res.statusCode, 200, res.body);
            const body = res.json() as { items: { id: string }[]; next_cursor: string | null };
            assert.ok(body.items.length <= limit);
            seen.push(...body.items.map((e) => e.id));
            cursor = body.next_cursor;
            if (!cursor) break;
            assert.equal(body.items.length, limit, 'only the last page is short');
          }
          assert.equal(cursor, null, 'the listing ends');
          assert.deepEqual(seen, expected);
        },
      ),
      { numRuns: 25 },
    );
  });
});
