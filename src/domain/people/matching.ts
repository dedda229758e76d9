// Single sign-on matching, as the spec says: a person is found by the provider's (issuer,
// subject) once linked; otherwise by email, case-insensitively and only when the provider
// asserts the email is verified, which then links the subject. Nobody is created by signing in.
//
// "Case-insensitively" means ASCII case only. Unicode case mapping folds some other characters
// onto ASCII letters (the Kelvin sign U+212A onto `k`, the long s U+017F onto `s`, U+0130 onto
// `i`), so an account at a provider named with them could take over the person whose address
// has the plain letter. An address that Unicode case mapping would change differently from ASCII
// lowering is refused (`email_ambiguous`), and the comparison in SQL is the ASCII one.
//
// After an issuer change made by anyone but the operator, people and students who existed before
// it are not linked by email until the operator confirms the issuer (`link_confirmation_required`):
// the new issuer's owner could otherwise assert a colleague's address and sign in as them.
//
// `decideMatch` is the rule, pure; `matchIdentity` loads the candidates in one query, applies
// the rule and writes the link.
import { PgErrorCode, pgErrorCode, type Queryable } from '../../db/db.ts';

export interface Identity {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
}

export type Party = { kind: 'person'; id: string } | { kind: 'student'; id: string };

export interface Candidates {
  /** The active party linked to (issuer, subject), if any. */
  linked?: Party;
  /** A link exists but its person was removed or its student departed. */
  linkedInactive?: boolean;
  /** Staff or admin with this email, and the subject they are linked to at this issuer. */
  person?: { id: string; subject: string | null; held?: boolean | null };
  /** Roster student with this email, and their subject at this issuer. */
  student?: { id: string; subject: string | null; held?: boolean | null };
}

export type MatchFailure =
  | 'person_not_found'
  | 'email_not_verified'
  | 'identity_conflict'
  | 'email_ambiguous'
  | 'link_confirmation_required';

/** ASCII letters lowered, everything else as it is: the only case folding matching does. */
export function asciiLower(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Whether Unicode case mapping treats the address differently from ASCII lowering. */
export function caseAmbiguous(email: string): boolean {
  const ascii = asciiLower(email);
  return email.toLowerCase() !== ascii || email.toUpperCase().toLowerCase() !== ascii;
}
export type MatchResult = { party: Party; link: boolean } | { failure: MatchFailure };

export function decideMatch(identity: Identity, candidates: Candidates): MatchResult {
  if (candidates.linked) return { party: candidates.linked, link: false };
  if (candidates.linkedInactive) return { failure: 'person_not_found' };
  if (identity.email && caseAmbiguous(identity.email)) return { failure: 'email_ambiguous' };
  // A staff member and a student with the same address: the console account wins (documented).
  const found = candidates.person
    ? {
        party: { kind: 'person' as const, id: candidates.person.id },
        subject: candidates.person.subject,
        held: candidates.person.held === true,
      }
    : candidates.student
      ? {
          party: { kind: 'student' as const, id: candidates.student.id },
          subject: candidates.student.subject,
          held: candidates.student.held === true,
        }
      : undefined;
  if (!found || !identity.email) return { failure: 'person_not_found' };
  if (!identity.emailVerified) return { failure: 'email_not_verified' };
  // Already linked to another account at this provider: a second account claiming the same
  // email does not take the person over.
  if (found.subject !== null && found.subject !== identity.subject) return { failure: 'identity_conflict' };
  // The issuer changed (not by the operator) after this person existed: whoever runs the new
  // issuer could assert their address, so no link until the operator confirms the issuer.
  if (found.held) return { failure: 'link_confirmation_required' };
  return { party: found.party, link: true };
}

const NO_INSTITUTION = '00000000-0000-0000-0000-000000000000';
const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Finds (and links, on first sign-in) the party of an institution (or of the platform, null). */
export async function matchIdentity(
  tx: Queryable,
  institutionId: string | null,
  identity: Identity,
  now: Date,
): Promise<MatchResult> {
  const { rows } = await tx.query<{
    linked_person: string | null;
    linked_student: string | null;
    linked_active: boolean | null;
    person: { id: string; subject: string | null; held: boolean | null } | null;
    student: { id: string; subject: string | null; held: boolean | null } | null;
  }>(
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
      // lower() uses the database's Unicode case mapping (it folds the Kelvin sign to `k`), so a
      // stored address must also equal the ASCII-lowered one (translate), and an ambiguous
      // asserted one looks nobody up at all.
      identity.email && !caseAmbiguous(identity.email) ? asciiLower(identity.email) : null,
      NO_INSTITUTION,
      ASCII_UPPER,
      ASCII_UPPER.toLowerCase(),
    ],
  );
  const row = rows[0];
  const linkedParty: Party | undefined = row.linked_person
    ? { kind: 'person', id: row.linked_person }
    : row.linked_student
      ? { kind: 'student', id: row.linked_student }
      : undefined;
  const result = decideMatch(identity, {
    linked: row.linked_active ? linkedParty : undefined,
    linkedInactive: linkedParty !== undefined && !row.linked_active,
    person: row.person ?? undefined,
    student: row.student ?? undefined,
  });
  if ('failure' in result) return result;
  if (result.link) {
    try {
      await tx.query(
        `INSERT INTO sign_in_links (institution_id, issuer, subject, person_id, student_id, created_at, last_sign_in_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)`,
        [
          institutionId,
          identity.issuer,
          identity.subject,
          result.party.kind === 'person' ? result.party.id : null,
          result.party.kind === 'student' ? result.party.id : null,
          now,
        ],
      );
    } catch (error) {
      // A concurrent first sign-in linked the subject or the party meanwhile.
      if (pgErrorCode(error) === PgErrorCode.uniqueViolation) return { failure: 'identity_conflict' };
      throw error;
    }
  } else {
    await tx.query(
      `UPDATE sign_in_links SET last_sign_in_at = $4
       WHERE coalesce(institution_id, $5::uuid) = coalesce($1::uuid, $5::uuid) AND issuer = $2 AND subject = $3`,
      [institutionId, identity.issuer, identity.subject, now, NO_INSTITUTION],
    );
  }
  return result;
}
