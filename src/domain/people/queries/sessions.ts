// The SQL of sessions (../sessions.ts), one function per statement, each taking the connection
// or transaction it runs in. The token is stored only as its SHA-256.
//
// Indexes: sessions by token_hash (unique) and by person_id (open sessions).
import type { Queryable } from '../../../db/db.ts';
import type { OpenSession, SessionRow } from '../model.ts';

export async function insertSession(
  db: Queryable,
  row: {
    tokenHash: string;
    institutionId: string | null;
    personId: string | null;
    studentId: string | null;
    operator: boolean;
    now: Date;
    expiresAt: Date;
  },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO sessions (token_hash, institution_id, person_id, student_id, operator, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7) RETURNING id`,
    [row.tokenHash, row.institutionId, row.personId, row.studentId, row.operator, row.now, row.expiresAt],
  );
  return rows[0].id;
}

/** The open session of a token hash, seen since `idleSince`, with its person or student. */
export async function selectOpenSession(
  db: Queryable,
  tokenHash: string,
  now: Date,
  idleSince: Date,
): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT s.id, s.institution_id, s.person_id, s.student_id, s.operator, s.last_seen_at, s.expires_at,
            p.name AS person_name, p.email AS person_email, p.roles, p.permissions,
            nullif(concat_ws(' ', st.first_name, st.last_name), '') AS student_name, st.email AS student_email,
            i.time_zone, i.archived_at
     FROM sessions s
     LEFT JOIN people p ON p.id = s.person_id AND p.removed_at IS NULL
     LEFT JOIN students st ON st.id = s.student_id AND st.departed_at IS NULL
     LEFT JOIN institutions i ON i.id = st.institution_id
     WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > $2 AND s.last_seen_at > $3`,
    [tokenHash, now, idleSince],
  );
  return rows[0];
}

export async function touchSession(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE sessions SET last_seen_at = $2 WHERE id = $1', [id, now]);
}

export async function endSessionRow(db: Queryable, id: string, now: Date, reason: string): Promise<void> {
  await db.query('UPDATE sessions SET ended_at = $2, ended_reason = $3 WHERE id = $1 AND ended_at IS NULL', [
    id,
    now,
    reason,
  ]);
}

/** Ends every open session of a person; returns how many. */
export async function endPersonSessionRows(
  db: Queryable,
  personId: string,
  now: Date,
  reason: string,
): Promise<number> {
  const { rowCount } = await db.query(
    'UPDATE sessions SET ended_at = $2, ended_reason = $3 WHERE person_id = $1 AND ended_at IS NULL',
    [personId, now, reason],
  );
  return rowCount;
}

/** Open sessions of a person, newest first; at most 100. */
export async function selectOpenSessionsOfPerson(
  db: Queryable,
  personId: string,
  now: Date,
): Promise<OpenSession[]> {
  const { rows } = await db.query<OpenSession>(
    `SELECT id, created_at, last_seen_at, expires_at FROM sessions
     WHERE person_id = $1 AND ended_at IS NULL AND expires_at > $2 ORDER BY created_at DESC LIMIT 100`,
    [personId, now],
  );
  return rows;
}
