// What every section's writes share: one statement for the creates and one for the updates,
// each taking $1 the institution, $2 the rows as one JSON parameter and $3 the time.
import type { Queryable } from '../../../db/db.ts';

/** A statement writing a batch of a section's rows. */
export type RowsStatement = (
  q: Queryable,
  institutionId: string,
  rows: Record<string, unknown>[],
  now: Date,
) => Promise<void>;

/** A section's two writes. */
export interface SectionWrites {
  insert: RowsStatement;
  update: RowsStatement;
}

/** The statement `sql` run on a batch of rows ($1 the institution, $2 the rows, $3 the time). */
export const rowsStatement =
  (sql: string): RowsStatement =>
  async (q, institutionId, rows, now) => {
    await q.query(sql, [institutionId, JSON.stringify(rows), now]);
  };

/**
 * The writes of a section whose rows are columns of `table` (written with their SQL type in
 * `columns`): the insert of new rows, where a conflict (a concurrent push created the row) writes
 * nothing, and the update by id of the `updated` columns (all of them unless named).
 */
export function tableWrites(
  table: string,
  columns: Record<string, string>,
  updated: string[] = Object.keys(columns),
): SectionWrites {
  const names = Object.keys(columns);
  const typed = (of: string[]) => of.map((name) => `${name} ${columns[name]}`).join(', ');
  return {
    insert: rowsStatement(`INSERT INTO ${table} (institution_id, ${names.join(', ')}, created_at, updated_at)
       SELECT $1, ${names.map((name) => `r.${name}`).join(', ')}, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(${typed(names)})
       ON CONFLICT DO NOTHING`),
    update: rowsStatement(`UPDATE ${table} w SET ${updated.map((name) => `${name} = r.${name}`).join(', ')},
         updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, ${typed(updated)})
       WHERE w.id = r.id AND w.institution_id = $1`),
  };
}

/**
 * The statement `sql` matching a batch of sent rows to the stored ones in one query ($1 the
 * institution, $2 the sent rows, each with its position `i`, as one JSON parameter).
 */
export const matchStatement =
  <Sent extends { i: number }, Stored>(sql: string) =>
  async (q: Queryable, institutionId: string, rows: Sent[]): Promise<Stored[]> =>
    (await q.query<Stored>(sql, [institutionId, JSON.stringify(rows)])).rows;

/** A dry run's transaction: it reads and classifies like a push and cannot write. */
export async function setReadOnly(q: Queryable): Promise<void> {
  await q.query('SET TRANSACTION READ ONLY');
}
