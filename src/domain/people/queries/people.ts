// The SQL of people and identity providers, one function per statement, each taking the
// connection or transaction it runs in. A person's `institution_id` is null for the platform's
// operators, and so is the platform provider's: `IS NOT DISTINCT FROM` and the coalesce to the
// nil UUID (the unique index of identity_providers is on that expression) match both.
//
// Indexes: people by id and by (institution_id, lower(email)) (unique among people not removed);
// sign_in_links by person_id; identity_providers by the coalesced institution id (unique).
import type { Queryable } from '../../../db/db.ts';
import type { Permission, Role } from '../../access/policy.ts';
import type { IdentityProvider, Person } from '../schemas.ts';

const personColumns = `p.id, p.email, p.name, p.roles, p.permissions, p.created_at, p.updated_at,
  EXISTS (SELECT 1 FROM sign_in_links l WHERE l.person_id = p.id) AS linked,
  (SELECT max(l.last_sign_in_at) FROM sign_in_links l WHERE l.person_id = p.id) AS last_sign_in_at`;

export async function selectPerson(
  db: Queryable,
  institutionId: string | null,
  id: string,
): Promise<Person | undefined> {
  const { rows } = await db.query<Person>(
    `SELECT ${personColumns} FROM people p
     WHERE p.id = $1 AND p.institution_id IS NOT DISTINCT FROM $2 AND p.removed_at IS NULL`,
    [id, institutionId],
  );
  return rows[0];
}

/** The people of an institution (or the operators), by email; at most 5000. */
export async function selectPeople(db: Queryable, institutionId: string | null): Promise<Person[]> {
  const { rows } = await db.query<Person>(
    `SELECT ${personColumns} FROM people p
     WHERE p.institution_id IS NOT DISTINCT FROM $1 AND p.removed_at IS NULL
     ORDER BY lower(p.email), p.id LIMIT 5000`,
    [institutionId],
  );
  return rows;
}

/** Inserts a person; an email taken already is the unique violation the caller reports. */
export async function insertPerson(
  db: Queryable,
  institutionId: string | null,
  row: { email: string; name: string; roles: Role[]; permissions: Permission[]; now: Date },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO people (institution_id, email, name, roles, permissions, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
    [institutionId, row.email, row.name, row.roles, row.permissions, row.now],
  );
  return rows[0].id;
}

export async function updatePersonRow(
  db: Queryable,
  institutionId: string,
  id: string,
  row: { name: string; roles: Role[]; permissions: Permission[]; now: Date },
): Promise<void> {
  await db.query(
    `UPDATE people SET name = $3, roles = $4, permissions = $5, updated_at = $6
     WHERE id = $1 AND institution_id = $2 AND removed_at IS NULL`,
    [id, institutionId, row.name, row.roles, row.permissions, row.now],
  );
}

/** Marks a person removed (the row stays for the audit); false when there was no such person. */
export async function markPersonRemoved(
  tx: Queryable,
  institutionId: string | null,
  id: string,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE people SET removed_at = $3, updated_at = $3
     WHERE id = $1 AND institution_id IS NOT DISTINCT FROM $2 AND removed_at IS NULL`,
    [id, institutionId, now],
  );
  return rowCount > 0;
}

export async function deleteSignInLinks(tx: Queryable, personId: string): Promise<void> {
  await tx.query('DELETE FROM sign_in_links WHERE person_id = $1', [personId]);
}

/** What a null institution (the platform) is coalesced to, as the unique indexes do. */
export const NO_INSTITUTION = '00000000-0000-0000-0000-000000000000';

export type ProviderRow = Omit<IdentityProvider, 'client_secret_set'> & { client_secret_encrypted: string };

export async function selectProvider(
  db: Queryable,
  institutionId: string | null,
): Promise<ProviderRow | undefined> {
  const { rows } = await db.query<ProviderRow>(
    `SELECT issuer, client_id, client_secret_encrypted, email_domains, links_held_since, created_at, updated_at
     FROM identity_providers WHERE coalesce(institution_id, $2::uuid) = coalesce($1::uuid, $2::uuid)`,
    [institutionId, NO_INSTITUTION],
  );
  return rows[0];
}

export async function upsertProvider(
  db: Queryable,
  institutionId: string | null,
  row: {
    issuer: string;
    clientId: string;
    secretEncrypted: string;
    domains: string[];
    now: Date;
    /** When email linking of existing people is held (an issuer change not made by the operator). */
    linksHeldSince: Date | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO identity_providers (institution_id, issuer, client_id, client_secret_encrypted, email_domains,
                                     links_held_since, created_at, updated_at)
     SELECT $1, r.issuer, r.client_id, r.secret, r.domains, r.held, r.now, r.now
     FROM json_to_record($2::json) AS r(issuer text, client_id text, secret text, domains text[],
                                        held timestamptz, now timestamptz)
     ON CONFLICT (coalesce(institution_id, '00000000-0000-0000-0000-000000000000'::uuid)) DO UPDATE
       SET issuer = excluded.issuer, client_id = excluded.client_id,
           client_secret_encrypted = excluded.client_secret_encrypted,
           email_domains = excluded.email_domains, links_held_since = excluded.links_held_since,
           updated_at = excluded.updated_at`,
    [
      institutionId,
      JSON.stringify({
        issuer: row.issuer,
        client_id: row.clientId,
        secret: row.secretEncrypted,
        domains: row.domains,
        held: row.linksHeldSince,
        now: row.now,
      }),
    ],
  );
}

/** Opens email linking at the current issuer (the operator confirmed it); false when no provider. */
export async function clearLinksHold(db: Queryable, institutionId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE identity_providers SET links_held_since = NULL, updated_at = $2 WHERE institution_id = $1',
    [institutionId, now],
  );
  return rowCount > 0;
}

/** Deletes the provider; false when none was configured. */
export async function deleteProvider(db: Queryable, institutionId: string | null): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM identity_providers WHERE coalesce(institution_id, $2::uuid) = coalesce($1::uuid, $2::uuid)',
    [institutionId, NO_INSTITUTION],
  );
  return rowCount > 0;
}

/**
 * Institutions whose name contains the text, whose slug is it, or whose provider lists the
 * domain; at most 20, by name.
 */
export async function selectInstitutionsMatching(db: Queryable, text: string, domain: string) {
  const { rows } = await db.query<{ slug: string; name: string; sso: boolean }>(
    `SELECT i.slug, i.name, (ip.id IS NOT NULL) AS sso
     FROM institutions i LEFT JOIN identity_providers ip ON ip.institution_id = i.id
     WHERE strpos(lower(i.name), $1) > 0 OR i.slug = $1 OR $2 = ANY (ip.email_domains)
     ORDER BY lower(i.name) LIMIT 20`,
    [text, domain],
  );
  return rows;
}

/** Which of `domains` another institution's provider holds (migration 0025's claims table). */
export async function selectDomainsClaimedElsewhere(
  db: Queryable,
  institutionId: string,
  domains: string[],
): Promise<string[]> {
  const { rows } = await db.query<{ domain: string }>(
    `SELECT domain FROM email_domain_claims
     WHERE domain = ANY ($2::text[]) AND institution_id IS DISTINCT FROM $1::uuid ORDER BY domain`,
    [institutionId || null, domains],
  );
  return rows.map((r) => r.domain);
}
