// The operator credential authenticates the admin API (and the CLI on top of it).
// On a first start with none configured, one is generated and shown once; only its hash is kept.
// The SQL is in ./queries.ts.

import type { Db } from '../../db/db.ts';
import { GlobalLock } from '../../db/locks.ts';
import { ApiError } from '../../errors.ts';
import { digestsEqual, generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Deps } from '../deps.ts';
import {
  activeOperatorCredential,
  anyOperatorCredential,
  cancelOperatorSignInLinks,
  endOperatorSessions,
  insertOperatorCredential,
  lockOperatorCredentials,
  revokeOperatorCredentials,
} from './queries.ts';

/**
 * Makes sure some operator credential exists. Returns the plaintext of a newly created one (to
 * print once), or undefined when one was configured or stored already.
 */
export async function ensureOperatorCredential({ db, config }: Pick<Deps, 'db' | 'config'>) {
  if (config.operatorTokenHash) return undefined;
  return db.transaction(async (tx) => {
    // Two instances starting together must not both create one.
    await lockOperatorCredentials(tx, GlobalLock.operatorCredentials);
    if (await anyOperatorCredential(tx)) return undefined;
    const token = generateSecret('ssp_op_');
    await insertOperatorCredential(tx, sha256Hex(token), 'first start');
    return token;
  });
}

/**
 * Recovery from a lost or leaked token: replaces every stored operator credential with a new one
 * and, in the same transaction, ends every operator session (token links and platform operators
 * signed in through the platform provider alike) and cancels every unused operator sign-in link,
 * so nothing obtained with the old token outlives the reset.
 */
export async function resetOperatorCredential(
  db: Db,
): Promise<{ token: string; sessionsEnded: number; linksCancelled: number }> {
  const token = generateSecret('ssp_op_');
  return db.transaction(async (tx) => {
    await revokeOperatorCredentials(tx);
    await insertOperatorCredential(tx, sha256Hex(token), 'reset');
    const sessionsEnded = await endOperatorSessions(tx);
    const linksCancelled = await cancelOperatorSignInLinks(tx);
    return { token, sessionsEnded, linksCancelled };
  });
}

/** Accepts the configured or a stored operator token; anything else is 401. */
export async function authenticateOperator(
  { db, config }: Pick<Deps, 'db' | 'config'>,
  token: string | undefined,
): Promise<void> {
  const configuredHash = config.operatorTokenHash;
  if (!token) throw new ApiError('unauthorized', { detail: 'send Authorization: Bearer <operator token>' });
  const hash = sha256Hex(token);
  if (configuredHash && digestsEqual(configuredHash, hash)) return;
  const stored = await activeOperatorCredential(db, hash);
  if (stored && digestsEqual(stored.token_hash, hash)) return;
  throw new ApiError('unauthorized', { detail: 'the operator token is not valid' });
}
