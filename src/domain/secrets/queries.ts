// The SQL of the feed secrets (roster, help-sync) and the operator credentials, one function per
// statement, each taking the connection or transaction it runs in. Only SHA-256 hashes are
// stored; the comparison in constant time is the caller's (../../lib/secrets.ts).
//
// Indexes: each secrets table by secret_hash (authentication, every feed request) and by
// (institution_id, created_at) (the state and the active secret of an institution).
import type { Queryable } from '../../db/db.ts';

export type SecretTable = 'roster_secrets' | 'help_sync_secrets';

/** Holds the institution's row while its secrets change, so two issues cannot interleave. */
export async function lockInstitution(
  tx: Queryable,
  institutionId: string,
  mode: 'UPDATE' | 'NO KEY UPDATE',
) {
  await tx.query(`SELECT id FROM institutions WHERE id = $1 FOR ${mode}`, [institutionId]);
}

/** Revokes the institution's active secret of this table; the number revoked (0 or 1). */
export async function revokeActive(
  db: Queryable,
  table: SecretTable,
  institutionId: string,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE ${table} SET revoked_at = now() WHERE institution_id = $1 AND revoked_at IS NULL`,
    [institutionId],
  );
  return rowCount;
}

export async function hasActive(db: Queryable, table: SecretTable, institutionId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM ${table} WHERE institution_id = $1 AND revoked_at IS NULL`, [
    institutionId,
  ]);
  return rows.length > 0;
}

/** Stores a new secret's hash; its creation time. */
export async function insertSecret(
  db: Queryable,
  table: SecretTable,
  institutionId: string,
  hash: string,
): Promise<Date> {
  const { rows } = await db.query<{ created_at: Date }>(
    `INSERT INTO ${table} (institution_id, secret_hash) VALUES ($1, $2) RETURNING created_at`,
    [institutionId, hash],
  );
  return rows[0].created_at;
}

/** The institution's latest help-sync secret; of two issued together, the active one. */
export async function latestSyncSecret(db: Queryable, institutionId: string) {
  const { rows } = await db.query<{ created_at: Date; revoked_at: Date | null }>(
    `SELECT created_at, revoked_at FROM help_sync_secrets WHERE institution_id = $1
     ORDER BY created_at DESC, revoked_at DESC NULLS FIRST LIMIT 1`,
    [institutionId],
  );
  return rows[0];
}

/** The active roster secret with this hash. */
export async function activeRosterSecretByHash(db: Queryable, hash: string) {
  const { rows } = await db.query<{ id: string; institution_id: string; secret_hash: string }>(
    `SELECT id, institution_id, secret_hash FROM roster_secrets
     WHERE secret_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [hash],
  );
  return rows[0];
}

/**
 * Records that a roster secret authenticated a push. At most one write a minute per secret, so a
 * burst of pages costs one UPDATE, not one each.
 */
export async function touchRosterSecret(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE roster_secrets SET last_used_at = now()
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

/**
 * Keeps the institution's current roster secret working until `until` as the previous one
 * (revoking an older previous one: there is at most one); returns how many were kept (0 or 1).
 */
export async function keepCurrentUntil(tx: Queryable, institutionId: string, until: Date): Promise<number> {
  await tx.query(
    `UPDATE roster_secrets SET revoked_at = now()
     WHERE institution_id = $1 AND revoked_at IS NULL AND expires_at IS NOT NULL`,
    [institutionId],
  );
  const { rowCount } = await tx.query(
    `UPDATE roster_secrets SET expires_at = $2
     WHERE institution_id = $1 AND revoked_at IS NULL AND expires_at IS NULL`,
    [institutionId, until],
  );
  return rowCount;
}

export interface RosterSecretRow {
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

/** The institution's current roster secret (or its latest, revoked) and a previous one still working. */
export async function rosterSecretRows(
  db: Queryable,
  institutionId: string,
): Promise<{ latest?: RosterSecretRow; previous?: RosterSecretRow }> {
  const { rows } = await db.query<RosterSecretRow & { previous: boolean }>(
    `(SELECT created_at, revoked_at, expires_at, last_used_at, false AS previous FROM roster_secrets
      WHERE institution_id = $1 AND expires_at IS NULL ORDER BY created_at DESC LIMIT 1)
     UNION ALL
     (SELECT created_at, revoked_at, expires_at, last_used_at, true FROM roster_secrets
      WHERE institution_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC LIMIT 1)`,
    [institutionId],
  );
  return { latest: rows.find((r) => !r.previous), previous: rows.find((r) => r.previous) };
}

/**
 * Active institutions whose current roster secret is at least `days` old, oldest first (the
 * operator's list; an archived institution is not asked to rotate).
 */
export async function rosterSecretsDue(db: Queryable, days: number) {
  const { rows } = await db.query<{ slug: string; name: string; issued_at: Date; last_used_at: Date | null }>(
    `SELECT i.slug, i.name, s.created_at AS issued_at, s.last_used_at FROM roster_secrets s
     JOIN institutions i ON i.id = s.institution_id AND i.archived_at IS NULL
     WHERE s.revoked_at IS NULL AND s.expires_at IS NULL AND s.created_at <= now() - make_interval(days => $1)
     ORDER BY s.created_at, i.slug`,
    [days],
  );
  return rows;
}

/** Whether any roster secret was ever issued: to this institution, or (null) to any. */
export async function anyRosterSecret(db: Queryable, institutionId: string | null): Promise<boolean> {
  const { rows } =
    institutionId === null
      ? await db.query('SELECT 1 FROM roster_secrets LIMIT 1')
      : await db.query('SELECT 1 FROM roster_secrets WHERE institution_id = $1 LIMIT 1', [institutionId]);
  return rows.length > 0;
}

/** The help-sync secret with this hash (active or not) and its institution's slug. */
export async function syncSecretByHash(db: Queryable, hash: string) {
  const { rows } = await db.query<{
    institution_id: string;
    slug: string;
    secret_hash: string;
    revoked: boolean;
    archived_at: Date | null;
  }>(
    `SELECT s.institution_id, i.slug, s.secret_hash, s.revoked_at IS NOT NULL AS revoked, i.archived_at
     FROM help_sync_secrets s JOIN institutions i ON i.id = s.institution_id
     WHERE s.secret_hash = $1`,
    [hash],
  );
  return rows[0];
}

/** Whether the institution with this slug was ever issued a help-sync secret (undefined: no such institution). */
export async function syncSecretEverIssued(db: Queryable, slug: string): Promise<boolean | undefined> {
  const { rows } = await db.query<{ any_secret: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM help_sync_secrets s WHERE s.institution_id = i.id) AS any_secret
     FROM institutions i WHERE i.slug = $1`,
    [slug],
  );
  return rows[0]?.any_secret;
}

export async function anyOperatorCredential(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM operator_credentials WHERE revoked_at IS NULL LIMIT 1');
  return rows.length > 0;
}

export async function insertOperatorCredential(tx: Queryable, hash: string, label: string): Promise<void> {
  await tx.query('INSERT INTO operator_credentials (token_hash, label) VALUES ($1, $2)', [hash, label]);
}

export async function revokeOperatorCredentials(tx: Queryable): Promise<void> {
  await tx.query('UPDATE operator_credentials SET revoked_at = now() WHERE revoked_at IS NULL');
}

export async function activeOperatorCredential(db: Queryable, hash: string) {
  const { rows } = await db.query<{ token_hash: string }>(
    'SELECT token_hash FROM operator_credentials WHERE token_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  return rows[0];
}

/** Ends every live operator session (the token's and platform operators'); returns how many. */
export async function endOperatorSessions(tx: Queryable): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE sessions SET ended_at = now(), ended_reason = 'operator_reset'
     WHERE ended_at IS NULL AND expires_at > now()
       AND (operator OR person_id IN (SELECT id FROM people WHERE institution_id IS NULL))`,
  );
  return rowCount;
}

/** Cancels every unused operator sign-in link (expiring it now: its page then says so); returns how many. */
export async function cancelOperatorSignInLinks(tx: Queryable): Promise<number> {
  const { rowCount } = await tx.query(
    'UPDATE operator_sign_in_links SET expires_at = now() WHERE used_at IS NULL AND expires_at > now()',
  );
  return rowCount;
}

/** A column holding sealed values, with its table's key column (../reseal.ts lists them; never input). */
export interface SealedColumn {
  table: string;
  key: string;
  column: string;
}

/** Every stored value of the column, locked for re-sealing. */
export async function selectSealedValues(tx: Queryable, { table, key, column }: SealedColumn) {
  const { rows } = await tx.query<{ k: string; v: string }>(
    `SELECT ${key} AS k, ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL FOR UPDATE`,
  );
  return rows;
}

/** Writes re-sealed values back, by key. */
export async function updateSealedValues(
  tx: Queryable,
  { table, key, column }: SealedColumn,
  values: { k: string; v: string }[],
): Promise<void> {
  await tx.query(
    `UPDATE ${table} t SET ${column} = r.v FROM json_to_recordset($1::json) AS r(k text, v text)
     WHERE t.${key}::text = r.k`,
    [JSON.stringify(values)],
  );
}

/** Serialises the first start's creation of an operator credential across instances. */
export async function lockOperatorCredentials(tx: Queryable, lock: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [lock]);
}
