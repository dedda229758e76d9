// The inbox search's matches by student are read one student at a time, whatever the statistics
// say (src/domain/helpdesk/sql/request-page.ts): the planner's estimate of `LIKE '%term%'` comes
// from a sample of 100 strings, and when it took a term for a common one it joined the students
// to a scan of every request (docs/performance.md, "The inbox search's two plans"). Here every
// student matches, so the statistics say so, and the statement must still look each student's
// requests up by student.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable } from '../../src/db/db.ts';
import { searchPattern } from '../../src/domain/helpdesk/search.ts';
import { type SearchBounds, selectRequestPage } from '../../src/domain/helpdesk/sql/request-page.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

interface PlanNode {
  'Node Type': string;
  'Subplan Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describeEachDatabase('inbox search: the plan of the matches by student', (ctx) => {
  test('no hash or merge join reads every request, even when the statistics call the term common', async () => {
    const db = ctx().db;
    const tenant = await seedTenant(ctx());
    await db.query(
      `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name)
       SELECT $1, $2, 'plan' || g || '@example.edu', 'P' || g, 'Ada', 'Planford' || g FROM generate_series(1, 3000) g`,
      [tenant.institutionId, tenant.cohortId],
    );
    await db.query(
      `INSERT INTO help_requests (institution_id, student_id, status, priority, category, summary)
       SELECT $1, id, 'new', 'normal', 'other', 'Timetable clash' FROM students WHERE institution_id = $1`,
      [tenant.institutionId],
    );
    await db.query('ANALYZE students, help_requests');

    const statements: { sql: string; params: unknown[] }[] = [];
    const recording: Queryable = {
      query(sql, params) {
        statements.push({ sql, params: params ?? [] });
        return db.query(sql, params);
      },
    };
    const filter = { limit: 20, crisisFirst: true, search: searchPattern('planford') };
    // The rare read (its matches capped at SEARCH_RARE + 1), and the read of every match (a
    // common term whose matches lie beyond the walk, forced by small bounds).
    for (const bounds of [undefined, { rare: 0, walk: 1 }] satisfies (SearchBounds | undefined)[]) {
      statements.length = 0;
      const page = await selectRequestPage(recording, tenant.institutionId, filter, bounds);
      assert.equal(page.items.length, 20);
      const reads = statements.filter((s) => s.sql.startsWith('WITH found'));
      assert.equal(reads.length, bounds ? 2 : 1);
      for (const { sql, params } of reads) {
        const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
          `EXPLAIN (FORMAT JSON) ${sql}`,
          params,
        );
        const json = rows[0]['QUERY PLAN'];
        const plan = (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode;
        const found = nodes(plan).find((n) => n['Subplan Name'] === 'CTE found');
        assert.ok(found, 'the statement reads its matches in the CTE `found`');
        const joins = nodes(found).filter(
          (n) => n['Node Type'] === 'Hash Join' || n['Node Type'] === 'Merge Join',
        );
        assert.deepEqual(
          joins.map((n) => n['Node Type']),
          [],
          `matches read with a join over every request (bounds ${JSON.stringify(bounds)})`,
        );
      }
    }
  });
});
