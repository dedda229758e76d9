// One row of an institution's table by its id. Every institution's rows carry institution_id, and
// a read by id always names the institution too: another institution's row is not found, as a
// missing one is (the API's 404), never told apart.
import type { Queryable } from './db.ts';

/**
 * The row of `table` with this id, as `columns`, when it is the institution's; else undefined.
 * `table` and `columns` are the calling queries module's own text, never a request's.
 */
export async function selectOwnedRow<T>(
  q: Queryable,
  table: string,
  columns: string,
  institutionId: string,
  id: string,
): Promise<T | undefined> {
  const { rows } = await q.query<T>(`SELECT ${columns} FROM ${table} WHERE institution_id = $1 AND id = $2`, [
    institutionId,
    id,
  ]);
  return rows[0];
}
