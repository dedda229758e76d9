// Every stored value of a student, searched for after an erasure: each text, varchar, JSON, JSONB
// and array column of every table (read from the catalogue, so a table added later is searched
// too) for the student's email, names and SIS id, and each uuid column for their id.
import type { Queryable } from '../../src/db/db.ts';

export async function leftovers(
  db: Queryable,
  needles: string[],
  uuid: string,
): Promise<{ table: string; column: string; needle: string }[]> {
  const { rows: columns } = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
       AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'tsvector', 'uuid')`,
  );
  const found: { table: string; column: string; needle: string }[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const searched = type === 'uuid' ? [uuid] : [...needles, uuid];
    for (const needle of searched) {
      const sql =
        type === 'uuid'
          ? `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}" = $1::uuid`
          : `SELECT count(*)::int AS n FROM "${table}" WHERE strpos(lower("${column}"::text), lower($1)) > 0`;
      const { rows } = await db.query<{ n: number }>(sql, [needle]);
      if (rows[0].n > 0) found.push({ table, column, needle });
    }
  }
  return found;
}
