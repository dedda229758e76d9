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
import { insertSignInLink, selectMatchCandidates, touchSignInLink } from './queries/sign-in.ts';

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

/** Finds (and links, on first sign-in) the party of an institution (or of the platform, null). */
export async function matchIdentity(
  tx: Queryable,
  institutionId: string | null,
  identity: Identity,
  now: Date,
): Promise<MatchResult> {
  // An ambiguous asserted address looks nobody up at all.
  const email = identity.email && !caseAmbiguous(identity.email) ? asciiLower(identity.email) : null;
  const row = await selectMatchCandidates(tx, institutionId, identity, email);
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
  if (!result.link) {
    await touchSignInLink(tx, institutionId, identity, now);
    return result;
  }
  try {
    await insertSignInLink(tx, institutionId, identity, result.party, now);
  } catch (error) {
    // A concurrent first sign-in linked the subject or the party meanwhile.
    if (pgErrorCode(error) === PgErrorCode.uniqueViolation) return { failure: 'identity_conflict' };
    throw error;
  }
  return result;
}
