// The operator credential authenticates the admin API (and the CLI on top of it).
// On a first start with none configured, one is generated and shown once; only its hash is kept.

import type { Db } from '../../db/db.ts';
import { GlobalLock } from '../../db/locks.ts';
import { ApiError } from '../../errors.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';

export function createOperatorCredentials(db: Db, configuredHash: string | undefined) {
  return {
    /**
     * Makes sure some operator credential exists. Returns the plaintext of a newly created
     * one (to print once), or undefined when one was configured or stored already.
     */
    async ensure(): Promise<string | undefined> {
      if (configuredHash) return undefined;
      return db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [GlobalLock.operatorCredentials]);
        const { rows } = await tx.query(
          'SELECT 1 FROM operator_credentials WHERE revoked_at IS NULL LIMIT 1',
        );
        if (rows.length > 0) return undefined;
        const token = generateSecret('ssp_op_');
        await tx.query("INSERT INTO operator_credentials (token_hash, label) VALUES ($1, 'first start')", [
          sha256Hex(token),
        ]);
        return token;
      });
    },

    /**
     * Recovery from a lost or leaked token: replaces every stored operator credential with a new
     * one and, in the same transaction, ends every operator session (token links and platform
     * operators signed in through the platform provider alike) and cancels every unused operator
     * sign-in link, so nothing obtained with the old token outlives the reset.
     */
    async reset(): Promise<{ token: string; sessionsEnded: number; linksCancelled: number }> {
      const token = generateSecret('ssp_op_');
      return db.transaction(async (tx) => {
        await tx.query('UPDATE operator_credentials SET revoked_at = now() WHERE revoked_at IS NULL');
        await tx.query("INSERT INTO operator_credentials (token_hash, label) VALUES ($1, 'reset')", [
          sha256Hex(token),
        ]);
        const sessions = await tx.query(
          `UPDATE sessions SET ended_at = now(), ended_reason = 'operator_reset'
           WHERE ended_at IS NULL AND expires_at > now()
             AND (operator OR person_id IN (SELECT id FROM people WHERE institution_id IS NULL))`,
        );
        // Expiring a link now cancels it: the link page then says it expired or was used.
        const links = await tx.query(
          `UPDATE operator_sign_in_links SET expires_at = now()
           WHERE used_at IS NULL AND expires_at > now()`,
        );
        return { token, sessionsEnded: sessions.rowCount, linksCancelled: links.rowCount };
      });
    },

    async authenticate(token: string | undefined): Promise<void> {
      if (!token)
        throw new ApiError('unauthorized', { detail: 'send Authorization: Bearer <operator token>' });
      const hash = sha256Hex(token);
      if (configuredHash && digestsEqual(configuredHash, hash)) return;
      const { rows } = await db.query<{ token_hash: string }>(
        'SELECT token_hash FROM operator_credentials WHERE token_hash = $1 AND revoked_at IS NULL',
        [hash],
      );
      if (rows[0] && digestsEqual(rows[0].token_hash, hash)) return;
      throw new ApiError('unauthorized', { detail: 'the operator token is not valid' });
    },
  };
}

export type OperatorCredentials = ReturnType<typeof createOperatorCredentials>;
