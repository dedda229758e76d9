// Key rotation: re-seals every encrypted value stored by the service with the current key.
// Run after setting the new ENCRYPTION_KEY and listing the old one in ENCRYPTION_KEYS_PREVIOUS;
// once it reports nothing left under an old key, the old key can be dropped. It also seals
// values stored in plaintext before encryption at rest existed (webhook signing keys), which
// every start does too.
import type { Db } from '../../db/db.ts';
import { isSealed, type Keyring } from '../../lib/encryption.ts';
import { selectSealedValues, updateSealedValues } from './queries.ts';

/** Tables and columns that hold sealed values, with their key column. */
const sealedColumns = [
  { table: 'identity_providers', key: 'id', column: 'client_secret_encrypted' },
  { table: 'sign_in_flows', key: 'state_hash', column: 'code_verifier_encrypted' },
  { table: 'webhook_endpoints', key: 'id', column: 'secret' },
  { table: 'webhook_endpoints', key: 'id', column: 'previous_secret' },
  { table: 'oneroster_sources', key: 'id', column: 'client_secret_encrypted' },
] as const;

/** A stored value: sealed, or plaintext from before encryption at rest. */
function open(keyring: Keyring, value: string): string {
  return isSealed(value) ? keyring.decrypt(value) : value;
}

export async function resealSecrets(db: Db, keyring: Keyring): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { table, key, column } of sealedColumns) {
    counts[`${table}.${column}`] = await db.transaction(async (tx) => {
      const rows = await selectSealedValues(tx, { table, key, column });
      const stale = rows.filter((row) => !keyring.isCurrent(row.v));
      if (stale.length === 0) return 0;
      await updateSealedValues(
        tx,
        { table, key, column },
        stale.map((row) => ({ k: row.k, v: keyring.encrypt(open(keyring, row.v)) })),
      );
      return stale.length;
    });
  }
  return counts;
}
