// The types of sessions, sign-in flows and identity matching: the rows the queries return and
// what the jobs hand each other. Imports nothing from its siblings.

/** Whom a session belongs to: a person (staff, admin; institution null for an operator), a roster student, or the operator. */
export type SessionParty =
  | { kind: 'person'; personId: string; institutionId: string | null }
  | { kind: 'student'; studentId: string; institutionId: string }
  | { kind: 'operator' };

/** An open session as authenticating it reads it, with its person or student. */
export interface SessionRow {
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

/** A person's open session, as the people page lists it. */
export interface OpenSession {
  id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/** A sign-in under way, kept server-side between the start and the provider's callback. */
export interface SignInFlow {
  institution_id: string | null;
  nonce: string;
  code_verifier_encrypted: string;
  return_to: string | null;
  expires_at: Date;
}

/** Sign-ins under way in all, to one institution and from one network, each counted up to its cap. */
export interface PendingSignIns {
  total: number;
  institution: number;
  network: number;
}

/** What matching an identity loads in one query: the linked party, and the person or student with the email. */
export interface MatchCandidatesRow {
  linked_person: string | null;
  linked_student: string | null;
  linked_active: boolean | null;
  person: { id: string; subject: string | null; held: boolean | null } | null;
  student: { id: string; subject: string | null; held: boolean | null } | null;
}
