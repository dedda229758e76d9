// Roster feed secrets (spec section 5, rules 1-4 and 8).
//
// Who may push into an institution:
// - an institution with its own secret (active or revoked) accepts only that active secret;
//   revoking it closes the feed with no fallback;
// - an institution that was never issued a secret accepts the platform-wide bootstrap secret;
// - when neither a bootstrap secret nor any institution secret exists, the feed is not
//   configured at all: 503 not_configured.

import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';

/** Roster secrets are rotated with the operator on this cadence (spec 5 rule 5). */
export const ROTATION_DAYS = 90;
const DAY_MS = 86_400_000;

/** Who a roster request authenticated as. */
export type RosterCaller = { kind: 'institution'; institutionId: string } | { kind: 'bootstrap' };

export interface IssuedSecret {
  secret: string;
  institution: string;
  created_at: Date;
}

export function createRosterSecretsService(db: Db, bootstrapHash: string | undefined) {
  return {
    /** Issues a new secret for the institution, revoking any active one; the plaintext is returned only here. */
    async issue(institutionId: string, slug: string): Promise<IssuedSecret> {
      const secret = generateSecret('ssp_roster_');
      const created = await db.transaction(async (tx) => {
        await tx.query('SELECT id FROM institutions WHERE id = $1 FOR UPDATE', [institutionId]);
        await tx.query(
          'UPDATE roster_secrets SET revoked_at = now() WHERE institution_id = $1 AND revoked_at IS NULL',
          [institutionId],
        );
        const { rows } = await tx.query<{ created_at: Date }>(
          'INSERT INTO roster_secrets (institution_id, secret_hash) VALUES ($1, $2) RETURNING created_at',
          [institutionId, sha256Hex(secret)],
        );
        return rows[0].created_at;
      });
      return { secret, institution: slug, created_at: created };
    },

    /** Revokes the active secret; returns false when there was none. */
    async revoke(institutionId: string): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE roster_secrets SET revoked_at = now() WHERE institution_id = $1 AND revoked_at IS NULL',
        [institutionId],
      );
      return rowCount > 0;
    },

    async status(institutionId: string) {
      const { rows } = await db.query<{ created_at: Date; revoked_at: Date | null }>(
        `SELECT created_at, revoked_at FROM roster_secrets WHERE institution_id = $1
         ORDER BY created_at DESC LIMIT 1`,
        [institutionId],
      );
      const latest = rows[0];
      if (!latest) return { state: bootstrapHash ? 'bootstrap' : 'not_configured' } as const;
      return {
        state: latest.revoked_at ? 'revoked' : 'active',
        issued_at: latest.created_at,
        ...(latest.revoked_at
          ? {}
          : { rotate_by: new Date(latest.created_at.getTime() + ROTATION_DAYS * DAY_MS) }),
        revoked_at: latest.revoked_at ?? undefined,
      } as const;
    },

    /** Identifies the caller from a bearer token, or throws 401 / 503. */
    async authenticate(token: string | undefined): Promise<RosterCaller> {
      if (token) {
        const hash = sha256Hex(token);
        const { rows } = await db.query<{ institution_id: string; secret_hash: string }>(
          'SELECT institution_id, secret_hash FROM roster_secrets WHERE secret_hash = $1 AND revoked_at IS NULL',
          [hash],
        );
        if (rows[0] && digestsEqual(rows[0].secret_hash, hash)) {
          return { kind: 'institution', institutionId: rows[0].institution_id };
        }
        if (bootstrapHash && digestsEqual(bootstrapHash, hash)) return { kind: 'bootstrap' };
      }
      if (!bootstrapHash) {
        const { rows } = await db.query('SELECT 1 FROM roster_secrets LIMIT 1');
        if (rows.length === 0) {
          throw new ApiError('not_configured', {
            detail:
              'the roster feed has no secret configured: issue an institution secret or set the bootstrap secret',
          });
        }
      }
      throw new ApiError('unauthorized', {
        detail: token ? 'the bearer secret is not valid' : 'send Authorization: Bearer <secret>',
      });
    },

    /**
     * Whether the caller may write into the institution. The bootstrap secret reaches only
     * institutions that were never issued a secret of their own.
     */
    async mayAccess(caller: RosterCaller, institutionId: string): Promise<boolean> {
      if (caller.kind === 'institution') return caller.institutionId === institutionId;
      const { rows } = await db.query('SELECT 1 FROM roster_secrets WHERE institution_id = $1 LIMIT 1', [
        institutionId,
      ]);
      return rows.length === 0;
    },
  };
}

export type RosterSecretsService = ReturnType<typeof createRosterSecretsService>;
