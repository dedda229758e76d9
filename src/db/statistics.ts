// The planner's statistics after a feed page that wrote a large share of an institution's rows.
//
// A push writes a whole roster within seconds: 5000 students a page, 60,000 enrolments in a
// minute. Autovacuum analyzes a table only once its changes exceed 10% of the table, and then
// only on its next round (a minute apart by default), so the pages that follow are planned
// against statistics from before: statistics that know nothing of this institution's students,
// units and terms (a new institution's values are in no most-common-value list, so the planner
// expects about one row for each). Measured on PostgreSQL (docs/oneroster.md, Performance): the
// enrolments' matching statement then probes the enrolments of each row's unit and term
// (enrolments_unit_term_idx) instead of the one enrolment of its student, unit and term
// (enrolments_natural_key), and a page of 5000 grew from 0.14 s to 5.9 s as the table filled.
//
// So a page that wrote (created or changed) at least ANALYZE_MIN_ROWS rows of a table, and at
// least ANALYZE_SHARE of the institution's rows in it (counted after the write, on the
// institution's index), analyzes that table at once, after its transaction committed (no lock
// is held meanwhile): autovacuum's rule, for the institution rather than the whole table, and
// without waiting. An institution's first big load analyzes after most of its pages (a roster
// of 20,000 after each of its 4 pages); a nightly push that changes a few rows never does.
//
// Cost: the count (an index range of the institution's rows) and ANALYZE, which reads a sample
// of 30,000 rows (default_statistics_target 100) whatever the table's size: tens of
// milliseconds here, a few hundred on a table of millions. One plain statement each, no session
// state: it works through PgBouncer's transaction pooling and on PGlite. SKIP_LOCKED: when
// another ANALYZE (or autovacuum) holds the table, the statistics are being refreshed already,
// so the page does not wait for it.

import type { Queryable } from './db.ts';

export const ANALYZE_MIN_ROWS = 1000;
export const ANALYZE_SHARE = 0.1;

/** The tables a feed writes; only these names are ever analyzed (they go into the SQL text). */
export type FedTable = 'students' | 'programs' | 'campuses' | 'terms' | 'units' | 'enrolments';

const FED: readonly FedTable[] = ['students', 'programs', 'campuses', 'terms', 'units', 'enrolments'];

/** Whether a page that wrote `written` rows of an institution that now has `rows` in the table calls for ANALYZE. */
export function staleAfter(written: number, rows: number): boolean {
  return written >= ANALYZE_MIN_ROWS && written >= ANALYZE_SHARE * rows;
}

/**
 * Analyzes the tables a page wrote a large share of the institution's rows of (rows created or
 * changed, by table); returns the tables analyzed. Costs nothing below ANALYZE_MIN_ROWS (no
 * query at all).
 */
export async function refreshStatistics(
  q: Queryable,
  institutionId: string,
  written: Partial<Record<FedTable, number>>,
): Promise<FedTable[]> {
  const candidates = FED.filter((t) => (written[t] ?? 0) >= ANALYZE_MIN_ROWS);
  if (candidates.length === 0) return [];
  const { rows } = await q.query<Record<FedTable, number>>(
    `SELECT ${candidates.map((t) => `(SELECT count(*) FROM ${t} WHERE institution_id = $1)::int AS ${t}`).join(', ')}`,
    [institutionId],
  );
  const stale = candidates.filter((t) => staleAfter(written[t] ?? 0, Number(rows[0][t])));
  if (stale.length) await q.query(`ANALYZE (SKIP_LOCKED) ${stale.join(', ')}`);
  return stale;
}
