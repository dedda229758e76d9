// Server-side sessions of the console and the student pages. The cookie carries 32 random
// bytes; the database keeps only their SHA-256, so a copy of the sessions table signs nobody
// in. A session belongs to a person (staff, admin), a roster student or the operator.
//
// Cost: `authenticate` is one indexed SELECT joining the person, plus an UPDATE of
// last_seen_at at most once a minute per session (the idle timeout does not need more
// precision). Roles and permissions come from `people` on every request, so a removed role,
// a removed person or an ended session takes effect on the next request.
import type { Db, Queryable } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Caller, Permission, Role } from '../access/policy.ts';

export type SessionParty =
  | { kind: 'person'; personId: string; institutionId: string | null }
  | { kind: 'student'; studentId: string; institutionId: string }
  | { kind: 'operator' };

export interface SessionPolicy {
  idleMinutes: number;
  maxHours: number;
}

interface SessionRow {
  id: string;
  institution_id: string | null;
  person_id: string | null;
  student_id: string | null;
  operator: boolean;
  last_seen_at: Date;
  expires_at: Date;
  person_name: string | null;
  person_email: string | null;
  roles: string[] | null;
  permissions: string[] | null;
  student_name: string | null;
  student_email: string | null;
  /** The student's institution's time zone (students only). */
  time_zone: string | null;
  /** When the student's institution was archived (students only; docs/archiving.md). */
  archived_at: Date | null;
}

const TOUCH_AFTER_MS = 60_000;

export function createSessions(db: Db, clock: Clock, policy: SessionPolicy) {
  return {
    /** Starts a session; returns the cookie value (shown to nobody else) and the session id. */
    async create(
      party: SessionParty,
      tx: Queryable = db,
    ): Promise<{ token: string; id: string; expiresAt: Date }> {
      const token = generateSecret('ssp_sess_');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + policy.maxHours * 3_600_000);
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO sessions (token_hash, institution_id, person_id, student_id, operator, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7) RETURNING id`,
        [
          sha256Hex(token),
          party.kind === 'operator' ? null : party.institutionId,
          party.kind === 'person' ? party.personId : null,
          party.kind === 'student' ? party.studentId : null,
          party.kind === 'operator',
          now,
          expiresAt,
        ],
      );
      return { token, id: rows[0].id, expiresAt };
    },

    /** The caller behind a session cookie, or undefined when it is unknown, ended or timed out. */
    async authenticate(token: string | undefined): Promise<Caller | undefined> {
      if (!token || token.length > 200) return undefined;
      const now = clock.now();
      const idleSince = new Date(now.getTime() - policy.idleMinutes * 60_000);
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
        [sha256Hex(token), now, idleSince],
      );
      const row = rows[0];
      if (!row) return undefined;
      const caller = toCaller(row);
      if (!caller) return undefined;
      if (now.getTime() - row.last_seen_at.getTime() > TOUCH_AFTER_MS) {
        await db.query('UPDATE sessions SET last_seen_at = $2 WHERE id = $1', [row.id, now]);
      }
      return caller;
    },

    /** Ends one session (sign-out). */
    async end(sessionId: string, reason = 'signed_out'): Promise<void> {
      await db.query(
        'UPDATE sessions SET ended_at = $2, ended_reason = $3 WHERE id = $1 AND ended_at IS NULL',
        [sessionId, clock.now(), reason],
      );
    },

    /** Ends every open session of a person; returns how many. */
    async endForPerson(personId: string, reason: string, tx: Queryable = db): Promise<number> {
      const { rowCount } = await tx.query(
        'UPDATE sessions SET ended_at = $2, ended_reason = $3 WHERE person_id = $1 AND ended_at IS NULL',
        [personId, clock.now(), reason],
      );
      return rowCount;
    },

    /** Open sessions of a person, newest first (for the people page). */
    async listForPerson(personId: string) {
      const { rows } = await db.query<{ id: string; created_at: Date; last_seen_at: Date; expires_at: Date }>(
        `SELECT id, created_at, last_seen_at, expires_at FROM sessions
         WHERE person_id = $1 AND ended_at IS NULL AND expires_at > $2 ORDER BY created_at DESC LIMIT 100`,
        [personId, clock.now()],
      );
      return rows;
    },
  };
}

function toCaller(row: SessionRow): Caller | undefined {
  if (row.operator) return { kind: 'operator', actor: 'operator', sessionId: row.id };
  if (row.person_id) {
    // A removed person's session finds no person row: it is over.
    if (row.person_name === null) return undefined;
    const roles = (row.roles ?? []) as Role[];
    if (row.institution_id === null) {
      // A platform person (signed in through the platform provider) is an operator.
      return roles.includes('operator' as Role)
        ? { kind: 'operator', actor: row.person_name, sessionId: row.id, personId: row.person_id }
        : undefined;
    }
    return {
      kind: 'person',
      personId: row.person_id,
      institutionId: row.institution_id,
      roles,
      permissions: (row.permissions ?? []) as Permission[],
      actor: row.person_name,
      sessionId: row.id,
    };
  }
  if (row.student_id && row.institution_id && row.student_email !== null) {
    return {
      kind: 'student',
      studentId: row.student_id,
      institutionId: row.institution_id,
      actor: row.student_name ?? row.student_email,
      sessionId: row.id,
      timeZone: row.time_zone ?? 'UTC',
      institutionArchivedAt: row.archived_at,
    };
  }
  return undefined;
}

export type Sessions = ReturnType<typeof createSessions>;
