// Server-side sessions of the console and the student pages. The cookie carries 32 random
// bytes; the database keeps only their SHA-256, so a copy of the sessions table signs nobody
// in. A session belongs to a person (staff, admin), a roster student or the operator. How long
// one lasts is the configuration's (SESSION_IDLE_MINUTES, SESSION_MAX_HOURS).
//
// Cost: `authenticateSession` is one indexed SELECT joining the person, plus an UPDATE of
// last_seen_at at most once a minute per session (the idle timeout does not need more
// precision). Roles and permissions come from `people` on every request, so a removed role,
// a removed person or an ended session takes effect on the next request. The SQL is in
// ./queries/sessions.ts.
import type { Queryable } from '../../db/db.ts';
import { generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Caller, Permission, Role } from '../access/policy.ts';
import type { Deps } from '../deps.ts';
import type { OpenSession, SessionParty, SessionRow } from './model.ts';
import {
  endPersonSessionRows,
  endSessionRow,
  insertSession,
  selectOpenSession,
  selectOpenSessionsOfPerson,
  touchSession,
} from './queries/sessions.ts';

export type { SessionParty } from './model.ts';

const TOUCH_AFTER_MS = 60_000;

/** Starts a session; returns the cookie value (shown to nobody else) and the session id. */
export async function startSession(
  { db, clock, config }: Pick<Deps, 'db' | 'clock' | 'config'>,
  party: SessionParty,
  tx: Queryable = db,
): Promise<{ token: string; id: string; expiresAt: Date }> {
  const token = generateSecret('ssp_sess_');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + config.sessionMaxHours * 3_600_000);
  const id = await insertSession(tx, {
    tokenHash: sha256Hex(token),
    institutionId: party.kind === 'operator' ? null : party.institutionId,
    personId: party.kind === 'person' ? party.personId : null,
    studentId: party.kind === 'student' ? party.studentId : null,
    operator: party.kind === 'operator',
    now,
    expiresAt,
  });
  return { token, id, expiresAt };
}

/** The caller behind a session cookie, or undefined when it is unknown, ended or timed out. */
export async function authenticateSession(
  { db, clock, config }: Pick<Deps, 'db' | 'clock' | 'config'>,
  token: string | undefined,
): Promise<Caller | undefined> {
  if (!token || token.length > 200) return undefined;
  const now = clock.now();
  const idleSince = new Date(now.getTime() - config.sessionIdleMinutes * 60_000);
  const row = await selectOpenSession(db, sha256Hex(token), now, idleSince);
  if (!row) return undefined;
  const caller = toCaller(row);
  if (!caller) return undefined;
  if (now.getTime() - row.last_seen_at.getTime() > TOUCH_AFTER_MS) await touchSession(db, row.id, now);
  return caller;
}

/** Ends one session (sign-out). */
export async function endSession(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  sessionId: string,
  reason = 'signed_out',
): Promise<void> {
  await endSessionRow(db, sessionId, clock.now(), reason);
}

/** Ends every open session of a person; returns how many. */
export function endSessionsOfPerson(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  personId: string,
  reason: string,
  tx: Queryable = db,
): Promise<number> {
  return endPersonSessionRows(tx, personId, clock.now(), reason);
}

/** Open sessions of a person, newest first (for the people page). */
export function listPersonSessions(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  personId: string,
): Promise<OpenSession[]> {
  return selectOpenSessionsOfPerson(db, personId, clock.now());
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
