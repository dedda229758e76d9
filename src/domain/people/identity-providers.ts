// Each institution's OpenID Connect provider, and the platform's provider for operators
// (institution NULL). Saving settings runs discovery first, through the outbound URL guard,
// so a mistyped or private issuer is refused at once with the reason. The client secret is
// encrypted at rest and never returned. The SQL is in ./queries.ts, the shapes in ./schemas.ts.
import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/encryption.ts';
import { type OidcClient, type ProviderSettings, SignInError } from './oidc-client.ts';
import { deleteProvider, selectInstitutionsMatching, selectProvider, upsertProvider } from './queries.ts';
import type { IdentityProvider } from './schemas.ts';

export type IdentityProviderView = IdentityProvider;

export interface IdentityProviderInput {
  issuer: string;
  client_id: string;
  /** Required the first time; omitted later, the stored secret is kept. */
  client_secret?: string;
  email_domains?: string[];
}

/** What the identity provider functions need. */
export interface ProviderDeps {
  db: Db;
  clock: Clock;
  /** The client secret is stored encrypted with it (it must be usable again, so not hashed). */
  keyring: Keyring;
  /** Reads the issuer's discovery document before settings are saved. */
  oidc: Pick<OidcClient, 'check'>;
}

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

const noProvider = () => new ApiError('not_found', { detail: 'no identity provider is configured' });

/** The provider's settings without its secret, or 404. */
export async function getProvider(db: Db, institutionId: string | null): Promise<IdentityProvider> {
  const found = await selectProvider(db, institutionId);
  if (!found) throw noProvider();
  const { client_secret_encrypted: _secret, ...view } = found;
  return { ...view, client_secret_set: true };
}

/** The provider's settings, or undefined when none is configured. */
export async function findProvider(
  db: Db,
  institutionId: string | null,
): Promise<IdentityProvider | undefined> {
  const found = await selectProvider(db, institutionId);
  if (!found) return undefined;
  const { client_secret_encrypted: _secret, ...view } = found;
  return { ...view, client_secret_set: true };
}

/** Saves the provider's settings once its discovery reads; a refused issuer is 400 naming why. */
export async function putProvider(
  { db, clock, keyring, oidc }: ProviderDeps,
  institutionId: string | null,
  input: IdentityProviderInput,
): Promise<IdentityProvider> {
  const existing = await selectProvider(db, institutionId);
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
  await upsertProvider(db, institutionId, {
    issuer,
    clientId: input.client_id,
    secretEncrypted: keyring.encrypt(secret),
    domains,
    now: clock.now(),
  });
  return getProvider(db, institutionId);
}

export async function removeProvider(db: Db, institutionId: string | null): Promise<void> {
  if (!(await deleteProvider(db, institutionId))) throw noProvider();
}

/** The settings a sign-in uses (secret decrypted), or undefined when none is configured. */
export async function providerForSignIn(
  { db, keyring }: Pick<ProviderDeps, 'db' | 'keyring'>,
  institutionId: string | null,
): Promise<ProviderSettings | undefined> {
  const found = await selectProvider(db, institutionId);
  if (!found) return undefined;
  return {
    issuer: found.issuer,
    clientId: found.client_id,
    clientSecret: keyring.decrypt(found.client_secret_encrypted),
  };
}

/**
 * The sign-in page's search: institutions whose name contains the text, or whose provider
 * lists the domain of an email address typed in.
 */
export async function findInstitutions(db: Db, text: string) {
  const q = text.trim().toLowerCase().slice(0, 200);
  if (!q) return [];
  const domain = q.includes('@') ? q.slice(q.lastIndexOf('@') + 1) : q;
  return selectInstitutionsMatching(db, q, domain);
}

/** The functions above bound to their dependencies (`services.identityProviders.<name>`). */
export function createIdentityProviders(db: Db, clock: Clock, keyring: Keyring, oidc: OidcClient) {
  const deps: ProviderDeps = { db, clock, keyring, oidc };
  return {
    get: (institutionId: string | null) => getProvider(db, institutionId),
    put: (institutionId: string | null, input: IdentityProviderInput) =>
      putProvider(deps, institutionId, input),
    remove: (institutionId: string | null) => removeProvider(db, institutionId),
    forSignIn: (institutionId: string | null) => providerForSignIn(deps, institutionId),
    findInstitutions: (text: string) => findInstitutions(db, text),
  };
}

export type IdentityProviders = ReturnType<typeof createIdentityProviders>;
