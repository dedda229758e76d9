// Idempotency keys: the first answer to a creating POST, kept per caller and key for 24 hours,
// so that a client retrying after a lost answer gets that answer again instead of a second
// institution, endpoint or help request. Rules (IETF httpapi-idempotency-key draft, as Stripe):
// - the first request with a key claims it; its answer is stored when it is sent, except a 5xx,
//   which releases the key so the retry runs again;
// - the same key with the same request replays the stored answer; with another request it is
//   refused (422 idempotency_key_reused); while the first still runs, 409 idempotency_key_in_use;
// - a key older than 24 hours is forgotten, and a claim still running after ten minutes is
//   taken as abandoned (its process died) and may be claimed afresh.
// Cost: one INSERT (and a SELECT when the key exists) before the handler, one UPDATE after.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/encryption.ts';
import {
  deleteExpiredKeys,
  deleteKey,
  deleteUnansweredKey,
  insertOrReclaimKey,
  selectKey,
  storeAnswer,
} from './queries.ts';

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/** A key the client may send: 1-255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

export interface KeyRef {
  /** Who sent it: 'operator', 'person:<id>' or 'student:<id>'. */
  caller: string;
  key: string;
}

/** A stored answer: what is sent again on a replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'reused' }
  | { kind: 'in_use' };

/** The fingerprint of a request: what a replay must match. */
export function requestHash(parts: {
  method: string;
  route: string;
  params: unknown;
  body: unknown;
}): string {
  return createHash('sha256')
    .update(JSON.stringify([parts.method, parts.route, parts.params ?? null, parts.body ?? null]))
    .digest('hex');
}

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  keyring: Keyring;
}

/** Claims a key for a request, or says why the request must not run. */
export async function claimKey(deps: IdempotencyDeps, ref: KeyRef, hash: string): Promise<Claim> {
  const now = deps.clock.now();
  const claimed = await insertOrReclaimKey(
    deps.db,
    { caller: ref.caller, key: ref.key, hash },
    now,
    new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS),
    new Date(now.getTime() - ABANDONED_AFTER_MS),
  );
  if (claimed) return { kind: 'claimed' };
  const row = await selectKey(deps.db, ref.caller, ref.key);
  // Released between the two statements: the retry may run.
  if (!row) return claimKey(deps, ref, hash);
  if (row.request_hash !== hash) return { kind: 'reused' };
  if (row.status === null || row.response === null) return { kind: 'in_use' };
  try {
    return { kind: 'replay', answer: JSON.parse(deps.keyring.decrypt(row.response)) as StoredAnswer };
  } catch {
    // Sealed with a key the service no longer holds: the answer is lost, so the request runs again.
    await deleteKey(deps.db, ref.caller, ref.key);
    return claimKey(deps, ref, hash);
  }
}

/** Stores the first answer of a claimed key. */
export async function completeKey(deps: IdempotencyDeps, ref: KeyRef, answer: StoredAnswer): Promise<void> {
  await storeAnswer(
    deps.db,
    ref.caller,
    ref.key,
    answer.status,
    deps.keyring.encrypt(JSON.stringify(answer)),
  );
}

/** Forgets a claimed key whose request failed on the server's side, so a retry runs again. */
export async function releaseKey(deps: IdempotencyDeps, ref: KeyRef): Promise<void> {
  await deleteUnansweredKey(deps.db, ref.caller, ref.key);
}

/** Deletes keys past their 24 hours, at most `limit` at a time; returns how many. */
export async function expireKeys(deps: Pick<IdempotencyDeps, 'db' | 'clock'>, limit = 1000): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - IDEMPOTENCY_KEY_TTL_MS);
  return deleteExpiredKeys(deps.db, cutoff, limit);
}
