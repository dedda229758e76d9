// Each institution's OpenID Connect provider, and the platform's provider for operators
// (institution NULL). Saving settings runs discovery first, through the outbound URL guard,
// so a mistyped or private issuer is refused at once with the reason. The client secret is
// encrypted at rest and never returned.
import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/encryption.ts';
import { type OidcClient, type ProviderSettings, SignInError } from './oidc-client.ts';

export interface IdentityProviderView {
  issuer: string;
  client_id: string;
  client_secret_set: true;
  email_domains: string[];
  created_at: Date;
  updated_at: Date;
}

export interface IdentityProviderInput {
  issuer: string;
  client_id: string;
  /** Required the first time; omitted later, the stored secret is kept. */
  client_secret?: string;
  email_domains?: string[];
}

const NO_INSTITUTION = '00000000-0000-0000-0000-000000000000';

/** Email domains as stored: lower case, without a leading @, each once. */
export function normaliseDomains(domains: string[]): string[] {
  const out = new Set<string>();
  for (const raw of domains) {
    const domain = raw.trim().toLowerCase().replace(/^@/, '');
    if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domain)) {
      throw new ApiError('invalid_field', {
        field: 'email_domains',
        detail: `"${raw}" is not a domain name`,
      });
    }
    out.add(domain);
  }
  return [...out].sort();
}

export function createIdentityProviders(db: Db, clock: Clock, keyring: Keyring, oidc: OidcClient) {
  async function row(institutionId: string | null) {
    const { rows } = await db.query<IdentityProviderView & { client_secret_encrypted: string }>(
      `SELECT issuer, client_id, client_secret_encrypted, email_domains, created_at, updated_at
       FROM identity_providers WHERE coalesce(institution_id, $2::uuid) = coalesce($1::uuid, $2::uuid)`,
      [institutionId, NO_INSTITUTION],
    );
    return rows[0];
  }

  return {
    async get(institutionId: string | null): Promise<IdentityProviderView> {
      const found = await row(institutionId);
      if (!found) throw new ApiError('not_found', { detail: 'no identity provider is configured' });
      const { client_secret_encrypted: _secret, ...view } = found;
      return { ...view, client_secret_set: true };
    },

    async put(institutionId: string | null, input: IdentityProviderInput): Promise<IdentityProviderView> {
      const existing = await row(institutionId);
      const secret =
        input.client_secret ?? (existing ? keyring.decrypt(existing.client_secret_encrypted) : undefined);
      if (!secret) {
        throw new ApiError('missing_field', { field: 'client_secret', detail: 'client_secret is required' });
      }
      const issuer = input.issuer.trim();
      const domains = normaliseDomains(input.email_domains ?? existing?.email_domains ?? []);
      try {
        await oidc.check({ issuer, clientId: input.client_id, clientSecret: secret });
      } catch (error) {
        if (!(error instanceof SignInError)) throw error;
        throw new ApiError(error.code === 'url_not_allowed' ? 'url_not_allowed' : 'invalid_field', {
          field: 'issuer',
          detail: `the issuer could not be used: ${error.message}`,
          reason: error.code,
        });
      }
      const now = clock.now();
      await db.query(
        `INSERT INTO identity_providers (institution_id, issuer, client_id, client_secret_encrypted, email_domains, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (coalesce(institution_id, '00000000-0000-0000-0000-000000000000'::uuid)) DO UPDATE
           SET issuer = excluded.issuer, client_id = excluded.client_id,
               client_secret_encrypted = excluded.client_secret_encrypted,
               email_domains = excluded.email_domains, updated_at = excluded.updated_at`,
        [institutionId, issuer, input.client_id, keyring.encrypt(secret), domains, now],
      );
      return this.get(institutionId);
    },

    async remove(institutionId: string | null): Promise<void> {
      const { rowCount } = await db.query(
        'DELETE FROM identity_providers WHERE coalesce(institution_id, $2::uuid) = coalesce($1::uuid, $2::uuid)',
        [institutionId, NO_INSTITUTION],
      );
      if (rowCount === 0) throw new ApiError('not_found', { detail: 'no identity provider is configured' });
    },

    /** The settings a sign-in uses (secret decrypted), or undefined when none is configured. */
    async forSignIn(institutionId: string | null): Promise<ProviderSettings | undefined> {
      const found = await row(institutionId);
      if (!found) return undefined;
      return {
        issuer: found.issuer,
        clientId: found.client_id,
        clientSecret: keyring.decrypt(found.client_secret_encrypted),
      };
    },

    /**
     * The sign-in page's search: institutions whose name contains the text, or whose provider
     * lists the domain of an email address typed in.
     */
    async findInstitutions(text: string) {
      const q = text.trim().toLowerCase().slice(0, 200);
      if (!q) return [];
      const domain = q.includes('@') ? q.slice(q.lastIndexOf('@') + 1) : q;
      const { rows } = await db.query<{ slug: string; name: string; sso: boolean }>(
        `SELECT i.slug, i.name, (ip.id IS NOT NULL) AS sso
         FROM institutions i LEFT JOIN identity_providers ip ON ip.institution_id = i.id
         WHERE strpos(lower(i.name), $1) > 0 OR i.slug = $1 OR $2 = ANY (ip.email_domains)
         ORDER BY lower(i.name) LIMIT 20`,
        [q, domain],
      );
      return rows;
    },
  };
}

export type IdentityProviders = ReturnType<typeof createIdentityProviders>;
