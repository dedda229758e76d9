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
// never found by the roster feed.

import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { slugPattern } from '../../lib/ids.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';

export interface IssuedSyncSecret {
  secret: string;
  institution: string;
  created_at: Date;
}

export interface SyncCaller {
  institutionId: string;
  slug: string;
}

export function createHelpSyncSecretsService(db: Db) {
  async function issueNew(institutionId: string, slug: string, replace: boolean): Promise<IssuedSyncSecret> {
    const secret = generateSecret('ssp_sync_');
    const created = await db.transaction(async (tx) => {
      await tx.query('SELECT id FROM institutions WHERE id = $1 FOR NO KEY UPDATE', [institutionId]);
      if (replace) {
        await tx.query(
          'UPDATE help_sync_secrets SET revoked_at = now() WHERE institution_id = $1 AND revoked_at IS NULL',
          [institutionId],
        );
      } else {
        const { rows } = await tx.query(
          'SELECT 1 FROM help_sync_secrets WHERE institution_id = $1 AND revoked_at IS NULL',
          [institutionId],
        );
        if (rows.length > 0) {
          throw new ApiError('conflict', {
            detail: 'an active help-sync secret exists; rotate it or revoke it first',
          });
        }
      }
      const { rows } = await tx.query<{ created_at: Date }>(
        'INSERT INTO help_sync_secrets (institution_id, secret_hash) VALUES ($1, $2) RETURNING created_at',
        [institutionId, sha256Hex(secret)],
      );
      return rows[0].created_at;
    });
    return { secret, institution: slug, created_at: created };
  }

  return {
    /** Issues the first (or, after a revocation, a new) secret; 409 when one is active. */
    issue: (institutionId: string, slug: string) => issueNew(institutionId, slug, false),

    /** Replaces the active secret (if any) with a new one; the old one stops working at once. */
    rotate: (institutionId: string, slug: string) => issueNew(institutionId, slug, true),

    /** Revokes the active secret; returns false when there was none. */
    async revoke(institutionId: string): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE help_sync_secrets SET revoked_at = now() WHERE institution_id = $1 AND revoked_at IS NULL',
        [institutionId],
      );
      return rowCount > 0;
    },

    async status(institutionId: string) {
      const { rows } = await db.query<{ created_at: Date; revoked_at: Date | null }>(
        `SELECT created_at, revoked_at FROM help_sync_secrets WHERE institution_id = $1
         ORDER BY created_at DESC, revoked_at DESC NULLS FIRST LIMIT 1`,
        [institutionId],
      );
      const latest = rows[0];
      if (!latest) return { state: 'never_issued' } as const;
      return {
        state: latest.revoked_at ? 'revoked' : 'active',
        issued_at: latest.created_at,
        revoked_at: latest.revoked_at ?? undefined,
      } as const;
    },

    /**
     * Identifies the caller from a bearer token, or throws a 401 naming the case. `slug` is
     * the institution named in the request body, used only to tell "never issued" from
     * "wrong" when the token matches no secret.
     */
    async authenticate(token: string | undefined, slug?: unknown): Promise<SyncCaller> {
      if (!token) {
        throw new ApiError('sync_secret_missing', {
          detail: 'send Authorization: Bearer <help-sync secret>',
        });
      }
      const hash = sha256Hex(token);
      const { rows } = await db.query<{
        institution_id: string;
        slug: string;
        secret_hash: string;
        revoked: boolean;
      }>(
        `SELECT s.institution_id, i.slug, s.secret_hash, s.revoked_at IS NOT NULL AS revoked
         FROM help_sync_secrets s JOIN institutions i ON i.id = s.institution_id
         WHERE s.secret_hash = $1`,
        [hash],
      );
      const match = rows[0];
      if (match && digestsEqual(match.secret_hash, hash)) {
        if (match.revoked) {
          throw new ApiError('sync_secret_revoked', {
            detail: 'this help-sync secret was revoked or rotated; use the current secret',
          });
        }
        return { institutionId: match.institution_id, slug: match.slug };
      }
      if (typeof slug === 'string' && slugPattern.test(slug)) {
        const { rows: issued } = await db.query<{ any_secret: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM help_sync_secrets s WHERE s.institution_id = i.id) AS any_secret
           FROM institutions i WHERE i.slug = $1`,
          [slug],
        );
        if (issued[0] && !issued[0].any_secret) {
          throw new ApiError('sync_secret_never_issued', {
            detail:
              'no help-sync secret was ever issued for this institution; an institution admin issues one',
          });
        }
      }
      throw new ApiError('sync_secret_wrong', {
        detail: 'the bearer secret is not a valid help-sync secret',
      });
    },
  };
}

export type HelpSyncSecretsService = ReturnType<typeof createHelpSyncSecretsService>;
