// Help-desk sync secrets (spec section 5, rules 1, 6 and 7).
//
// - Issued per institution by an admin; the plaintext (ssp_sync_...) is returned once, only
//   its SHA-256 is stored. At most one is active per institution.
// - No platform-wide fallback: an institution that was never issued one has no sync surface.
// - Revocation and rotation take effect at once: authentication reads the database on every
//   request, nothing is cached.
// - 401 bodies say which case applies: sync_secret_missing, sync_secret_wrong,
//   sync_secret_revoked, sync_secret_never_issued.
// A roster secret is never found here (another table, another prefix), and a sync secret is
// never found by the roster feed. The SQL is in ./queries.ts.

import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { slugPattern } from '../../lib/ids.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';
import { refuseArchivedInstitution } from '../institutions/archiving.ts';
import {
  hasActive,
  insertSecret,
  latestSyncSecret,
  lockInstitution,
  revokeActive,
  syncSecretByHash,
  syncSecretEverIssued,
} from './queries.ts';
import type { HelpSyncSecretStatus, IssuedSyncSecret as IssuedSyncSecretShape } from './schemas.ts';

export type IssuedSyncSecret = IssuedSyncSecretShape & { created_at: Date };

export interface SyncCaller {
  institutionId: string;
  slug: string;
}

/**
 * A new secret for the institution. `replace`: the active one (if any) is revoked; otherwise an
 * active one is 409 conflict.
 */
async function issueNew(
  db: Db,
  institution: { id: string; slug: string },
  replace: boolean,
): Promise<IssuedSyncSecret> {
  const secret = generateSecret('ssp_sync_');
  const created = await db.transaction(async (tx) => {
    await lockInstitution(tx, institution.id, 'NO KEY UPDATE');
    if (replace) await revokeActive(tx, 'help_sync_secrets', institution.id);
    else if (await hasActive(tx, 'help_sync_secrets', institution.id)) {
      throw new ApiError('conflict', {
        detail: 'an active help-sync secret exists; rotate it or revoke it first',
      });
    }
    return insertSecret(tx, 'help_sync_secrets', institution.id, sha256Hex(secret));
  });
  return { secret, institution: institution.slug, created_at: created };
}

/** Issues the first (or, after a revocation, a new) secret; 409 when one is active. */
export function issueSyncSecret(
  db: Db,
  institution: { id: string; slug: string },
): Promise<IssuedSyncSecret> {
  return issueNew(db, institution, false);
}

/** Replaces the active secret (if any) with a new one; the old one stops working at once. */
export function rotateSyncSecret(
  db: Db,
  institution: { id: string; slug: string },
): Promise<IssuedSyncSecret> {
  return issueNew(db, institution, true);
}

/** Revokes the active secret; false when there was none. */
export async function revokeSyncSecret(db: Db, institutionId: string): Promise<boolean> {
  return (await revokeActive(db, 'help_sync_secrets', institutionId)) > 0;
}

export async function syncSecretStatus(db: Db, institutionId: string): Promise<HelpSyncSecretStatus> {
  const latest = await latestSyncSecret(db, institutionId);
  if (!latest) return { state: 'never_issued' };
  return {
    state: latest.revoked_at ? 'revoked' : 'active',
    issued_at: latest.created_at,
    revoked_at: latest.revoked_at ?? undefined,
  };
}

/**
 * Identifies the caller from a bearer token, or throws a 401 naming the case (or 409
 * institution_archived for a valid secret of an archived institution). `slug` is
 * the institution named in the request body, used only to tell "never issued" from
 * "wrong" when the token matches no secret.
 */
export async function authenticateSync(
  db: Db,
  token: string | undefined,
  slug?: unknown,
): Promise<SyncCaller> {
  if (!token) {
    throw new ApiError('sync_secret_missing', { detail: 'send Authorization: Bearer <help-sync secret>' });
  }
  const hash = sha256Hex(token);
  const match = await syncSecretByHash(db, hash);
  if (match && digestsEqual(match.secret_hash, hash)) {
    if (match.revoked) {
      throw new ApiError('sync_secret_revoked', {
        detail: 'this help-sync secret was revoked or rotated; use the current secret',
      });
    }
    // A valid secret of an archived institution is told so (docs/archiving.md).
    refuseArchivedInstitution(match);
    return { institutionId: match.institution_id, slug: match.slug };
  }
  if (
    typeof slug === 'string' &&
    slugPattern.test(slug) &&
    (await syncSecretEverIssued(db, slug)) === false
  ) {
    throw new ApiError('sync_secret_never_issued', {
      detail: 'no help-sync secret was ever issued for this institution; an institution admin issues one',
    });
  }
  throw new ApiError('sync_secret_wrong', { detail: 'the bearer secret is not a valid help-sync secret' });
}
