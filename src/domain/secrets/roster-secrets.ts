// Roster feed secrets (spec section 5, rules 1-4 and 8).
//
// Who may push into an institution:
// - an institution with its own secret (active or revoked) accepts only that active secret;
//   revoking it closes the feed with no fallback;
// - an institution that was never issued a secret accepts the platform-wide bootstrap secret;
// - when neither a bootstrap secret nor any institution secret exists, the feed is not
//   configured at all: 503 not_configured.
// Issuing a new secret may keep the previous one working for up to 7 days (the admin chooses, as
// with Stripe's key roll), so the SIS can be switched without a hard cut-over; both are accepted
// meanwhile and each records when it was last used. Revoking ends both at once.
// The SQL is in ./queries.ts; the shapes the API and the console show are ./schemas.ts.

import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Deps } from '../deps.ts';
import {
  activeRosterSecretByHash,
  anyRosterSecret,
  insertSecret,
  keepCurrentUntil,
  lockInstitution,
  revokeActive,
  rosterSecretRows,
  rosterSecretsDue,
  touchRosterSecret,
} from './queries.ts';
import type { IssuedRosterSecret, RosterSecretStatus } from './schemas.ts';

/** Roster secrets are rotated with the operator on this cadence (spec 5 rule 5). */
export const ROTATION_DAYS = 90;
/** The longest the previous secret may keep working after a new one is issued. */
export const MAX_OVERLAP_DAYS = 7;
const DAY_MS = 86_400_000;

/** Who a roster request authenticated as. */
export type RosterCaller = { kind: 'institution'; institutionId: string } | { kind: 'bootstrap' };

export type IssuedSecret = IssuedRosterSecret & { created_at: Date };

/** What the roster secret checks need: the database and the configuration (the bootstrap secret's hash, if set). */
export type RosterSecretsDeps = Pick<Deps, 'db' | 'config'>;

/**
 * Issues a new secret for the institution; the plaintext is returned only here. The current one
 * stops working at once (`previousValidDays` 0, the default) or keeps working beside the new one
 * for that many days (at most MAX_OVERLAP_DAYS); an older previous secret stops at once.
 */
export async function issueRosterSecret(
  db: Db,
  institution: { id: string; slug: string },
  options: { previousValidDays?: number; now?: Date } = {},
): Promise<IssuedSecret> {
  const days = options.previousValidDays ?? 0;
  if (!Number.isInteger(days) || days < 0 || days > MAX_OVERLAP_DAYS)
    throw new ApiError('invalid_field', {
      field: 'previous_secret_valid_days',
      detail: `How long the previous secret keeps working is a whole number of days from 0 to ${MAX_OVERLAP_DAYS}`,
    });
  const secret = generateSecret('ssp_roster_');
  const now = options.now ?? new Date();
  const { created, previousUntil } = await db.transaction(async (tx) => {
    await lockInstitution(tx, institution.id, 'UPDATE');
    let previousUntil: Date | undefined;
    if (days === 0) await revokeActive(tx, 'roster_secrets', institution.id);
    else {
      const until = new Date(now.getTime() + days * DAY_MS);
      if ((await keepCurrentUntil(tx, institution.id, until)) > 0) previousUntil = until;
    }
    return {
      created: await insertSecret(tx, 'roster_secrets', institution.id, sha256Hex(secret)),
      previousUntil,
    };
  });
  return {
    secret,
    institution: institution.slug,
    created_at: created,
    previous_secret_expires_at: previousUntil ?? null,
  };
}

/** Institutions whose roster secret is due for rotation (ROTATION_DAYS old or more), oldest first. */
export function rosterSecretsDueForRotation(db: Db) {
  return rosterSecretsDue(db, ROTATION_DAYS);
}

/** Revokes the active secret; false when there was none. */
export async function revokeRosterSecret(db: Db, institutionId: string): Promise<boolean> {
  return (await revokeActive(db, 'roster_secrets', institutionId)) > 0;
}

/**
 * The state of the institution's roster secret: while active, its age, rotation date and whether
 * it is due, when it was last used, and the previous secret while it still works.
 */
export async function rosterSecretStatus(
  { db, config: { bootstrapRosterSecretHash: bootstrapHash } }: RosterSecretsDeps,
  institutionId: string,
  now: Date = new Date(),
): Promise<RosterSecretStatus> {
  const { latest, previous } = await rosterSecretRows(db, institutionId);
  if (!latest) return { state: bootstrapHash ? 'bootstrap' : 'not_configured' };
  if (latest.revoked_at)
    return {
      state: 'revoked',
      issued_at: latest.created_at,
      revoked_at: latest.revoked_at,
      last_used_at: latest.last_used_at,
    };
  const ageDays = Math.floor((now.getTime() - latest.created_at.getTime()) / DAY_MS);
  return {
    state: 'active',
    issued_at: latest.created_at,
    rotate_by: new Date(latest.created_at.getTime() + ROTATION_DAYS * DAY_MS),
    age_days: ageDays,
    due_for_rotation: ageDays >= ROTATION_DAYS,
    last_used_at: latest.last_used_at,
    previous: previous
      ? {
          issued_at: previous.created_at,
          expires_at: previous.expires_at as Date,
          last_used_at: previous.last_used_at,
        }
      : null,
  };
}

/** Identifies the caller from a bearer token, or throws 401 / 503. */
export async function authenticateRoster(
  { db, config: { bootstrapRosterSecretHash: bootstrapHash } }: RosterSecretsDeps,
  token: string | undefined,
): Promise<RosterCaller> {
  if (token) {
    const hash = sha256Hex(token);
    const found = await activeRosterSecretByHash(db, hash);
    if (found && digestsEqual(found.secret_hash, hash)) {
      await touchRosterSecret(db, found.id);
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
