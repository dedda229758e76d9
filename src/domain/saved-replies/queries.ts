// Saved replies' SQL, one function per statement. Every statement is keyed by the institution, so
// another institution's saved reply is exactly as absent as one that does not exist.
import type { Queryable } from '../../db/db.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';

export interface SavedReply {
  id: string;
  name: string;
  body: string;
  created_at: Date;
  updated_at: Date;
}

const columns = 'id, name, body, created_at, updated_at';

/** The institution's saved replies, by name (at most MAX_SAVED_REPLIES of them). */
export async function selectSavedReplies(db: Queryable, institutionId: string): Promise<SavedReply[]> {
  const { rows } = await db.query<SavedReply>(
    `SELECT ${columns} FROM saved_replies WHERE institution_id = $1 ORDER BY lower(name), id`,
    [institutionId],
  );
  return rows;
}

export const selectSavedReply = (q: Queryable, institutionId: string, id: string) =>
  selectOwnedRow<SavedReply>(q, 'saved_replies', columns, institutionId, id);

export async function countSavedReplies(db: Queryable, institutionId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM saved_replies WHERE institution_id = $1',
    [institutionId],
  );
  return rows[0].count;
}

export async function insertSavedReply(
  db: Queryable,
  institutionId: string,
  reply: { name: string; body: string; now: Date },
): Promise<SavedReply> {
  const { rows } = await db.query<SavedReply>(
    `INSERT INTO saved_replies (institution_id, name, body, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $4) RETURNING ${columns}`,
    [institutionId, reply.name, reply.body, reply.now],
  );
  return rows[0];
}

export async function updateSavedReply(
  db: Queryable,
  institutionId: string,
  id: string,
  reply: { name: string; body: string; now: Date },
): Promise<SavedReply | undefined> {
  const { rows } = await db.query<SavedReply>(
    `UPDATE saved_replies SET name = $3, body = $4, updated_at = $5
     WHERE institution_id = $1 AND id = $2 RETURNING ${columns}`,
    [institutionId, id, reply.name, reply.body, reply.now],
  );
  return rows[0];
}

export async function deleteSavedReply(db: Queryable, institutionId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM saved_replies WHERE institution_id = $1 AND id = $2', [
    institutionId,
    id,
  ]);
  return rowCount === 1;
}
