// Roster feed secrets (spec section 5, rules 1-4 and 8).
//
// Who may push into an institution:
// - an institution with its own secret (active or revoked) accepts only that active secret;
//   revoking it closes the feed with no fallback;
// - an institution that was never issued a secret accepts the platform-wide bootstrap secret;
// - when neither a bootstrap secret nor any institution secret exists, the feed is not
//   configured at all: 503 not_configured.
// The SQL is in ./queries.ts; the shapes the API and the console show are ./schemas.ts.

import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';
import {
  activeRosterSecretByHash,
  anyRosterSecret,
  insertSecret,
  latestRosterSecret,
  lockInstitution,
  revokeActive,
} from './queries.ts';
import type { IssuedRosterSecret, RosterSecretStatus } from './schemas.ts';

/** Roster secrets are rotated with the operator on this cadence (spec 5 rule 5). */
export const ROTATION_DAYS = 90;
const DAY_MS = 86_400_000;

/** Who a roster request authenticated as. */
export type RosterCaller = { kind: 'institution'; institutionId: string } | { kind: 'bootstrap' };

export type IssuedSecret = IssuedRosterSecret & { created_at: Date };

/** What the roster secret functions need: the database and the bootstrap secret's hash, if set. */
export interface RosterSecretsDeps {
  db: Db;
  bootstrapHash: string | undefined;
}

/** Issues a new secret for the institution, revoking any active one; the plaintext is returned only here. */
export async function issueRosterSecret(
  db: Db,
  institution: { id: string; slug: string },
): Promise<IssuedSecret> {
  const secret = generateSecret('ssp_roster_');
  const created = await db.transaction(async (tx) => {
    await lockInstitution(tx, institution.id, 'UPDATE');
    await revokeActive(tx, 'roster_secrets', institution.id);
    return insertSecret(tx, 'roster_secrets', institution.id, sha256Hex(secret));
  });
  return { secret, institution: institution.slug, created_at: created };
}

/** Revokes the active secret; false when there was none. */
export async function revokeRosterSecret(db: Db, institutionId: string): Promise<boolean> {
  return (await revokeActive(db, 'roster_secrets', institutionId)) > 0;
}

/** The state of the institution's roster secret, with its rotation date while active. */
export async function rosterSecretStatus(
  { db, bootstrapHash }: RosterSecretsDeps,
  institutionId: string,
): Promise<RosterSecretStatus> {
  const latest = await latestRosterSecret(db, institutionId);
  if (!latest) return { state: bootstrapHash ? 'bootstrap' : 'not_configured' };
  return {
    state: latest.revoked_at ? 'revoked' : 'active',
    issued_at: latest.created_at,
    ...(latest.revoked_at
      ? {}
      : { rotate_by: new Date(latest.created_at.getTime() + ROTATION_DAYS * DAY_MS) }),
    revoked_at: latest.revoked_at ?? undefined,
  };
}

/** Identifies the caller from a bearer token, or throws 401 / 503. */
export async function authenticateRoster(
  { db, bootstrapHash }: RosterSecretsDeps,
  token: string | undefined,
): Promise<RosterCaller> {
  if (token) {
    const hash = sha256Hex(token);
    const found = await activeRosterSecretByHash(db, hash);
    if (found && digestsEqual(found.secret_hash, hash)) {
      return { kind: 'institution', institutionId: found.institution_id };
    }
    if (bootstrapHash && digestsEqual(bootstrapHash, hash)) return { kind: 'bootstrap' };
  }
  if (!bootstrapHash && !(await anyRosterSecret(db, null))) {
    throw new ApiError('not_configured', {
      detail:
        'the roster feed has no secret configured: issue an institution secret or set the bootstrap secret',
    });
  }
  throw new ApiError('unauthorized', {
    detail: token ? 'the bearer secret is not valid' : 'send Authorization: Bearer <secret>',
  });
}

/**
 * Whether the caller may write into the institution. The bootstrap secret reaches only
 * institutions that were never issued a secret of their own.
 */
export async function rosterMayAccess(db: Db, caller: RosterCaller, institutionId: string): Promise<boolean> {
  if (caller.kind === 'institution') return caller.institutionId === institutionId;
  return !(await anyRosterSecret(db, institutionId));
}

/** The functions above bound to their dependencies (`services.rosterSecrets.<name>`). */
export function createRosterSecretsService(db: Db, bootstrapHash: string | undefined) {
  const deps = { db, bootstrapHash };
  return {
    issue: (institutionId: string, slug: string) => issueRosterSecret(db, { id: institutionId, slug }),
    revoke: (institutionId: string) => revokeRosterSecret(db, institutionId),
    status: (institutionId: string) => rosterSecretStatus(deps, institutionId),
    authenticate: (token: string | undefined) => authenticateRoster(deps, token),
    mayAccess: (caller: RosterCaller, institutionId: string) => rosterMayAccess(db, caller, institutionId),
  };
}

export type RosterSecretsService = ReturnType<typeof createRosterSecretsService>;
