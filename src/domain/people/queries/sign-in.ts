// The SQL of signing in (../sign-in.ts, ../matching.ts), one function per statement, each taking
// the connection or transaction it runs in: flows under way, one-time operator links, and the
// links of a provider's (issuer, subject) to a person or student.
//
// Indexes: sign_in_flows by state_hash (its key) and by expires_at, alone and after the institution
// or the client network (the caps); sign_in_links by subject at an issuer (unique), and by
// (person_id, issuer) and (student_id, issuer).
import type { Queryable } from '../../../db/db.ts';
import type { MatchCandidatesRow, PendingSignIns, SignInFlow } from '../model.ts';
import { NO_INSTITUTION } from './people.ts';

/** Sign-ins under way in all, to the institution and from the network, each counted up to its cap. */
export async function countPendingSignIns(
  db: Queryable,
  caps: {
    now: Date;
    institutionId: string | null;
    network: string;
    total: number;
    institution: number;
    perNetwork: number;
  },
): Promise<PendingSignIns> {
  const { rows } = await db.query<PendingSignIns>(
    `SELECT
       (SELECT count(*)::int FROM (SELECT 1 FROM sign_in_flows WHERE expires_at > c.now LIMIT c.total) f) AS total,
       (SELECT count(*)::int FROM (SELECT 1 FROM sign_in_flows
          WHERE institution_id IS NOT DISTINCT FROM c.institution_id AND expires_at > c.now LIMIT c.institution) f) AS institution,
       (SELECT count(*)::int FROM (SELECT 1 FROM sign_in_flows
          WHERE client_network = c.network AND expires_at > c.now LIMIT c.per_network) f) AS network
     FROM json_to_record($1::json) AS c(now timestamptz, institution_id uuid, network text,
                                        total int, institution int, per_network int)`,
    [
      JSON.stringify({
        now: caps.now,
        institution_id: caps.institutionId,
        network: caps.network,
        total: caps.total,
        institution: caps.institution,
        per_network: caps.perNetwork,
      }),
    ],
  );
  return rows[0];
}

export async function insertSignInFlow(
  db: Queryable,
  row: {
    stateHash: string;
    institutionId: string | null;
    nonce: string;
    codeVerifierEncrypted: string;
    returnTo: string | null;
    now: Date;
    expiresAt: Date;
    network: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO sign_in_flows (state_hash, institution_id, nonce, code_verifier_encrypted, return_to, created_at, expires_at,
                                client_network)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      row.stateHash,
      row.institutionId,
      row.nonce,
      row.codeVerifierEncrypted,
      row.returnTo,
      row.now,
      row.expiresAt,
      row.network,
    ],
  );
}

/** Flows abandoned at the provider (cheap: indexed by expiry). */
export async function deleteExpiredSignInFlows(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM sign_in_flows WHERE expires_at < $1', [now]);
}

/** The flow of a state hash, deleted as it is read (a replayed callback finds nothing). */
export async function takeSignInFlow(db: Queryable, stateHash: string): Promise<SignInFlow | undefined> {
  const { rows } = await db.query<SignInFlow>(
    `DELETE FROM sign_in_flows WHERE state_hash = $1
     RETURNING institution_id, nonce, code_verifier_encrypted, return_to, expires_at`,
    [stateHash],
  );
  return rows[0];
}

export async function insertOperatorLink(db: Queryable, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.query('INSERT INTO operator_sign_in_links (token_hash, expires_at) VALUES ($1, $2)', [
    tokenHash,
    expiresAt,
  ]);
}

/** Marks an unused, unexpired operator link used; false when there was none. */
export async function useOperatorLinkRow(db: Queryable, tokenHash: string, now: Date): Promise<boolean> {
  const { rows } = await db.query<{ token_hash: string }>(
    `UPDATE operator_sign_in_links SET used_at = $2
     WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING token_hash`,
    [tokenHash, now],
  );
  return rows[0] !== undefined;
}

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The party linked to (issuer, subject) and the person and student with the email (already
 * ASCII-lowered; null looks nobody up), in one query. lower() uses the database's Unicode case
 * mapping (it folds the Kelvin sign to `k`), so a stored address must also equal the
 * ASCII-lowered one (translate).
 */
export async function selectMatchCandidates(
  tx: Queryable,
  institutionId: string | null,
  identity: { issuer: string; subject: string },
  email: string | null,
): Promise<MatchCandidatesRow> {
  const { rows } = await tx.query<MatchCandidatesRow>(
    `WITH link AS (
       SELECT l.person_id, l.student_id,
              (p.id IS NOT NULL OR st.id IS NOT NULL) AS active
       FROM sign_in_links l
       LEFT JOIN people p ON p.id = l.person_id AND p.removed_at IS NULL
       LEFT JOIN students st ON st.id = l.student_id AND st.departed_at IS NULL
       WHERE coalesce(l.institution_id, $5::uuid) = coalesce($1::uuid, $5::uuid)
         AND l.issuer = $2 AND l.subject = $3
     ),
     -- Set while the current issuer awaits the operator's confirmation (migration 0060).
     hold AS (
       SELECT links_held_since FROM identity_providers
       WHERE coalesce(institution_id, $5::uuid) = coalesce($1::uuid, $5::uuid) AND issuer = $2
     )
     SELECT (SELECT person_id FROM link) AS linked_person,
            (SELECT student_id FROM link) AS linked_student,
            (SELECT active FROM link) AS linked_active,
            (SELECT json_build_object('id', p.id,
                      'subject', (SELECT l.subject FROM sign_in_links l WHERE l.person_id = p.id AND l.issuer = $2),
                      'held', p.created_at <= (SELECT links_held_since FROM hold))
             FROM people p
             WHERE p.institution_id IS NOT DISTINCT FROM $1::uuid AND p.removed_at IS NULL
               AND $4::text IS NOT NULL AND lower(p.email) = $4::text
               AND translate(p.email, $6, $7) = $4::text) AS person,
            (SELECT json_build_object('id', s.id,
                      'subject', (SELECT l.subject FROM sign_in_links l WHERE l.student_id = s.id AND l.issuer = $2),
                      'held', s.created_at <= (SELECT links_held_since FROM hold))
             FROM students s
             WHERE $1::uuid IS NOT NULL AND s.institution_id = $1::uuid AND s.departed_at IS NULL
               AND $4::text IS NOT NULL AND lower(s.email) = $4::text
               AND translate(s.email, $6, $7) = $4::text) AS student`,
    [
      institutionId,
      identity.issuer,
      identity.subject,
      email,
      NO_INSTITUTION,
      ASCII_UPPER,
      ASCII_UPPER.toLowerCase(),
    ],
  );
  return rows[0];
}

/** Links (issuer, subject) to a person or student; a concurrent link is the unique violation the caller reports. */
export async function insertSignInLink(
  tx: Queryable,
  institutionId: string | null,
  identity: { issuer: string; subject: string },
  party: { kind: 'person' | 'student'; id: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO sign_in_links (institution_id, issuer, subject, person_id, student_id, created_at, last_sign_in_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6)`,
    [
      institutionId,
      identity.issuer,
      identity.subject,
      party.kind === 'person' ? party.id : null,
      party.kind === 'student' ? party.id : null,
      now,
    ],
  );
}

export async function touchSignInLink(
  tx: Queryable,
  institutionId: string | null,
  identity: { issuer: string; subject: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE sign_in_links SET last_sign_in_at = $4
     WHERE coalesce(institution_id, $5::uuid) = coalesce($1::uuid, $5::uuid) AND issuer = $2 AND subject = $3`,
    [institutionId, identity.issuer, identity.subject, now, NO_INSTITUTION],
  );
}
