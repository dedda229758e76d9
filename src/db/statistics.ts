// The planner's statistics after a feed page that wrote a large share of a table.
//
// A push writes a whole roster within seconds: 5000 students a page, 60,000 enrolments in a
// minute. Autovacuum analyzes a table only once its changes exceed 10% of the row count it
// last saw, and then only on its next round (a minute apart by default), so the pages that
// follow are planned against the old counts: against a students table the planner still
// believed nearly empty, matching a page of 5000 enrolments was measured at 11 s instead of
// 1 s (docs/oneroster.md, Performance). So a page that wrote at least ANALYZE_MIN_ROWS rows
// and at least ANALYZE_SHARE of the rows the statistics count (pg_class.reltuples; -1: never
// analyzed) analyzes that table at once, after its transaction committed (no lock is held
// meanwhile). That is autovacuum's own rule, applied without waiting.
//
// Cost: ANALYZE reads a sample of 30,000 rows (default_statistics_target 100) whatever the
// table's size, tens of milliseconds. The share keeps it rare: a roster of 20,000 students
// analyzes after its first pages only, a table of a million rows never for one page.
// One plain statement each, no session state: it works through PgBouncer's transaction pooling
// and on PGlite. SKIP_LOCKED: when another ANALYZE (or autovacuum) holds the table, the
// statistics are being refreshed already, so the page does not wait for it.

import type { Queryable } from './db.ts';

export const ANALYZE_MIN_ROWS = 1000;
export const ANALYZE_SHARE = 0.1;

/** The tables a feed writes; only these names are ever analyzed (they go into the SQL text). */
export type FedTable = 'students' | 'programs' | 'campuses' | 'terms' | 'units' | 'enrolments';

const FED: readonly FedTable[] = ['students', 'programs', 'campuses', 'terms', 'units', 'enrolments'];

/** Whether a write of `written` rows to a table whose statistics count `reltuples` rows calls for ANALYZE. */
export function staleAfter(written: number, reltuples: number): boolean {
  return written >= ANALYZE_MIN_ROWS && written >= ANALYZE_SHARE * Math.max(reltuples, 0);
}

/**
 * Analyzes the tables a page wrote a large share of (rows created or changed, by table);
 * returns the tables analyzed. Costs nothing below ANALYZE_MIN_ROWS (no query at all).
 */
export async function refreshStatistics(
  q: Queryable,
  written: Partial<Record<FedTable, number>>,
): Promise<FedTable[]> {
  const candidates = FED.filter((t) => (written[t] ?? 0) >= ANALYZE_MIN_ROWS);
  if (candidates.length === 0) return [];
  const { rows } = await q.query<{ relname: FedTable; reltuples: number }>(
    'SELECT relname, reltuples FROM pg_class WHERE oid = ANY ($1::regclass[])',
    [candidates],
  );
  const stale = rows
    .filter((r) => staleAfter(written[r.relname] ?? 0, Number(r.reltuples)))
    .map((r) => r.relname);
  if (stale.length) await q.query(`ANALYZE (SKIP_LOCKED) ${stale.join(', ')}`);
  return stale;
}
