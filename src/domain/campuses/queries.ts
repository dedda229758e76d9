// The SQL of a campus merge and of the names merges keep. Every statement is keyed by
// institution; the merge's statements run in its transaction, after the institution's roster and
// taxonomy locks, with both campuses locked by findCampus.
import type { Queryable } from '../../db/db.ts';
import type { CampusAlias } from './schemas.ts';

export interface CampusRow {
  id: string;
  name: string;
}

/** Tables whose campus_id moves with a merge; units exist once the teaching taxonomy is installed. */
export async function campusReferencingTables(tx: Queryable): Promise<string[]> {
  const { rows } = await tx.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_name = 'campus_id'
       AND table_name IN ('students', 'units')`,
  );
  return rows.map((r) => r.table_name).sort();
}

/** Finds and locks a campus by id or by name (case-insensitive), also through an alias. */
export async function findCampus(
  tx: Queryable,
  institutionId: string,
  ref: string,
): Promise<CampusRow | undefined> {
  const { rows } = await tx.query<CampusRow>(
    `SELECT c.id, c.name FROM campuses c
     WHERE c.institution_id = $1
       AND (($2::text ~* '^[0-9a-f-]{36}$' AND c.id::text = lower($2::text))
            OR lower(c.name) = lower($2::text)
            OR c.id = (SELECT a.campus_id FROM campus_aliases a
                       WHERE a.institution_id = $1 AND lower(a.alias) = lower($2::text)))
     ORDER BY lower(c.name) = lower($2::text) DESC
     LIMIT 1
     FOR UPDATE`,
    [institutionId, ref],
  );
  return rows[0];
}

/** Points one table's rows of a campus at another; returns how many moved. */
export async function moveCampusRows(
  tx: Queryable,
  table: 'students' | 'units',
  institutionId: string,
  move: { from: string; into: string },
): Promise<number> {
  // `table` is one of two fixed names (campusReferencingTables), never input.
  const { rowCount } = await tx.query(
    `UPDATE ${table} SET campus_id = $3 WHERE institution_id = $1 AND campus_id = $2`,
    [institutionId, move.from, move.into],
  );
  return rowCount;
}

/** Points a campus's aliases at another; returns how many moved. */
export async function moveAliases(
  tx: Queryable,
  institutionId: string,
  move: { from: string; into: string },
): Promise<number> {
  const { rowCount } = await tx.query(
    'UPDATE campus_aliases SET campus_id = $3 WHERE institution_id = $1 AND campus_id = $2',
    [institutionId, move.from, move.into],
  );
  return rowCount;
}

/** Deletes a campus and its audience tag. */
export async function deleteCampus(tx: Queryable, institutionId: string, id: string): Promise<void> {
  await tx.query('DELETE FROM audience_tags WHERE institution_id = $1 AND kind = $2 AND source_id = $3', [
    institutionId,
    'campus',
    id,
  ]);
  await tx.query('DELETE FROM campuses WHERE institution_id = $1 AND id = $2', [institutionId, id]);
}

/** Keeps a name as an alias of a campus (a name kept before now points at this campus). */
export async function addAlias(tx: Queryable, institutionId: string, alias: string, campusId: string) {
  await tx.query(
    `INSERT INTO campus_aliases (institution_id, alias, campus_id) VALUES ($1, $2, $3)
     ON CONFLICT (institution_id, lower(alias)) DO UPDATE SET campus_id = EXCLUDED.campus_id`,
    [institutionId, alias, campusId],
  );
}

/** The names that match a campus because of a merge, by name. */
export async function selectAliases(q: Queryable, institutionId: string): Promise<CampusAlias[]> {
  const { rows } = await q.query<CampusAlias>(
    `SELECT a.alias, a.campus_id, c.name AS campus_name, a.created_at
     FROM campus_aliases a JOIN campuses c ON c.id = a.campus_id AND c.institution_id = a.institution_id
     WHERE a.institution_id = $1 ORDER BY lower(a.alias)`,
    [institutionId],
  );
  return rows;
}
