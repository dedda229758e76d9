// The OneRoster memory is written a page of entries per statement (src/domain/oneroster/memory.ts):
// every entry lands whatever the page size, each page is one statement, and the pull writes
// smaller pages on the embedded database, whose one session requests wait for while a statement
// runs.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Db, Queryable } from '../../src/db/db.ts';
import type { KnownChange } from '../../src/domain/oneroster/known.ts';
import { memoryPageFor, storeMemory } from '../../src/domain/oneroster/memory.ts';
import { pullDepsOf, pullNow } from '../../src/domain/oneroster/pull/pull.ts';
import { selectMemory } from '../../src/domain/oneroster/queries.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { configureSource, generateRoster, providerPool } from '../helpers/oneroster-provider.ts';

const course = (n: number, data: KnownChange['data'] = { unit: `U${n}` }): KnownChange => ({
  kind: 'course',
  sourcedId: `course-${n}`,
  data,
  student: null,
});

/** The database, counting the statements it is sent. */
function counting(db: Queryable) {
  const counted = {
    statements: 0,
    query: ((sql: string, params?: unknown[]) => {
      counted.statements++;
      return db.query(sql, params);
    }) as Queryable['query'],
  };
  return counted;
}

test('background work writes the memory in smaller statements on the embedded database', () => {
  assert.ok(memoryPageFor('pglite') < memoryPageFor('postgres'));
  assert.equal(memoryPageFor('postgres'), 5000);
});

describeEachDatabase(
  'OneRoster memory: pages of entries',
  (ctx) => {
    const startProvider = providerPool();
    let provider: Awaited<ReturnType<typeof startProvider>>;
    before(async () => {
      // 700 students with one enrolment each: some 1,400 entries to remember, more than a page of
      // the embedded database's and less than one of PostgreSQL's.
      provider = await startProvider({
        data: generateRoster({ students: 700, courses: 3, enrolmentsPerStudent: 1 }),
      });
    });

    test("a pull remembers what it placed in pages of the database's size", async () => {
      const tenant = await seedTenant(ctx());
      const configured = await configureSource(ctx(), tenant.slug, provider, { cohort_id: tenant.cohortId });
      assert.equal(configured.statusCode, 200, configured.body);
      const db: Db = ctx().db;
      let upserts = 0;
      const countingDb: Db = {
        ...db,
        kind: db.kind,
        query(sql, params) {
          if (sql.includes('INSERT INTO oneroster_memory ')) upserts++;
          return db.query(sql, params);
        },
      };
      const deps = { ...pullDepsOf(ctx().deps), db: countingDb, sleep: async () => {} };
      const pulled = await pullNow(deps, tenant.institutionId, 'full');
      assert.equal(pulled.status, 'ok', pulled.error ?? '');
      const remembered = (await selectMemory(db, tenant.institutionId)).length;
      assert.ok(remembered > memoryPageFor('pglite'), `${remembered} entries remembered`);
      assert.equal(upserts, Math.ceil(remembered / memoryPageFor(db.kind)));
    });

    test('five entries in pages of two are three statements; three forgotten, two more', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const db = counting(ctx().db);
      const at = new Date();

      const stored = await storeMemory(
        db,
        tenant.institutionId,
        [1, 2, 3, 4, 5].map((n) => course(n)),
        at,
        2,
      );
      assert.deepEqual(stored, { stored: 5, forgotten: 0 });
      assert.equal(db.statements, 3);

      db.statements = 0;
      const forgotten = await storeMemory(
        db,
        tenant.institutionId,
        [1, 3, 5].map((n) => course(n, null)),
        at,
        2,
      );
      assert.deepEqual(forgotten, { stored: 0, forgotten: 3 });
      assert.equal(db.statements, 2);

      const left = await selectMemory(ctx().db, tenant.institutionId);
      assert.deepEqual(left.map((row) => [row.sourced_id, row.data]).sort(), [
        ['course-2', { unit: 'U2' }],
        ['course-4', { unit: 'U4' }],
      ]);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
