// Each institution's OpenID Connect provider, and the platform's provider for operators
// (institution NULL). Saving settings runs discovery first, through the outbound URL guard,
// so a mistyped or private issuer is refused at once with the reason. The client secret is
// encrypted at rest and never returned. The SQL is in ./queries/people.ts, the shapes in ./schemas.ts.
import { type Db, PgErrorCode, pgConstraint, pgErrorCode } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Caller } from '../access/policy.ts';
import type { Deps } from '../deps.ts';
import { type OidcClient, type ProviderSettings, SignInError } from './oidc-client.ts';
import {
  clearLinksHold,
  deleteProvider,
  selectDomainsClaimedElsewhere,
  selectInstitutionsMatching,
  selectProvider,
  upsertProvider,
} from './queries/people.ts';
import type { IdentityProvider } from './schemas.ts';

export type IdentityProviderView = IdentityProvider;

export interface IdentityProviderInput {
  issuer: string;
  client_id: string;
  /** Required the first time and when the issuer changes; omitted otherwise, the stored secret is kept. */
  client_secret?: string;
  email_domains?: string[];
}

/**
 * What the identity provider functions need: the keyring encrypts the client secret (it must be
 * usable again, so not hashed), and the OIDC client reads the issuer's discovery document before
 * settings are saved.
 */
export type ProviderDeps = Pick<Deps, 'db' | 'clock' | 'keyring'> & { oidc: Pick<OidcClient, 'check'> };

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

const domainsTaken = (domains: string[]) =>
  new ApiError('email_domain_taken', {
    field: 'email_domains',
    domains,
    detail: `${domains.join(', ')} ${domains.length === 1 ? 'belongs' : 'belong'} to another institution: an email domain finds one institution at sign-in`,
  });

/**
 * Who assigns an institution's email domains, and that each belongs to one institution. The
 * sign-in page finds an institution by the domain of the address typed in, so a domain claimed by
 * an institution's own admin could send another institution's people to it: only the operator
 * assigns them (an admin may save the other settings, sending the domains as stored or none),
 * and a domain another institution holds is refused.
 */
async function checkDomains(
  db: Db,
  institutionId: string | null,
  stored: readonly string[],
  requested: string[] | undefined,
  by: Caller,
): Promise<string[]> {
  const domains = normaliseDomains(requested ?? [...stored]);
  const storedSorted = [...stored].sort();
  const same = domains.length === stored.length && domains.every((d, i) => d === storedSorted[i]);
  if (!same && by.kind !== 'operator') {
    throw new ApiError('email_domains_operator_only', {
      field: 'email_domains',
      detail: "only the platform operator assigns an institution's email domains; ask them to change these",
    });
  }
  if (institutionId !== null && domains.length > 0) {
    const taken = await selectDomainsClaimedElsewhere(db, institutionId, domains);
    if (taken.length > 0) throw domainsTaken(taken);
  }
  return domains;
}

/**
 * Whether email linking of existing people is held at the issuer being saved: from the moment an
 * issuer is set by anyone but the operator (a changed provider could assert any colleague's
 * address), until the operator confirms it. The operator setting an issuer is that confirmation;
 * saving other settings keeps the hold as it is.
 */
function linksHeldSince(
  existing: { links_held_since: string | Date | null } | undefined,
  issuerChanged: boolean,
  by: Caller,
  now: Date,
): Date | null {
  if (by.kind === 'operator') return null;
  if (issuerChanged) return now;
  return existing?.links_held_since ? new Date(existing.links_held_since) : null;
}

/**
 * Saves the provider's settings once its discovery reads; a refused issuer is 400 naming why.
 * `by` is the caller (only the operator changes email domains).
 */
export async function putProvider(
  { db, clock, keyring, oidc }: ProviderDeps,
  institutionId: string | null,
  input: IdentityProviderInput,
  by: Caller,
): Promise<IdentityProvider> {
  const existing = await selectProvider(db, institutionId);
  const issuer = input.issuer.trim();
  const issuerChanged = existing === undefined || existing.issuer !== issuer;
  // The stored secret belongs to the stored issuer: sending it to another would hand it to
  // whoever runs that one.
  const secret =
    input.client_secret ??
    (existing && !issuerChanged ? keyring.decrypt(existing.client_secret_encrypted) : undefined);
  if (!secret && !existing) {
    throw new ApiError('missing_field', { field: 'client_secret', detail: 'The client secret is required' });
  }
  const domains = await checkDomains(
    db,
    institutionId,
    existing?.email_domains ?? [],
    input.email_domains,
    by,
  );
  // Discovery sends no secret: a new issuer is read (and a bad one refused) before the secret is asked for.
  try {
    await oidc.check({ issuer, clientId: input.client_id, clientSecret: secret ?? '' });
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    throw new ApiError(error.code === 'url_not_allowed' ? 'url_not_allowed' : 'invalid_field', {
      field: 'issuer',
      detail: `the issuer could not be used: ${error.message}`,
      reason: error.code,
    });
  }
  if (!secret) {
    throw new ApiError('missing_field', {
      field: 'client_secret',
      detail:
        'the issuer changed: send the client secret registered at the new issuer (the stored one is never sent to another issuer)',
    });
  }
  try {
    await upsertProvider(db, institutionId, {
      issuer,
      clientId: input.client_id,
      secretEncrypted: keyring.encrypt(secret),
      domains,
      now: clock.now(),
      linksHeldSince: linksHeldSince(existing, issuerChanged, by, clock.now()),
    });
  } catch (error) {
    // Claimed by another institution since the check above (the claims table's key decides).
    if (
      pgErrorCode(error) === PgErrorCode.uniqueViolation &&
      pgConstraint(error) === 'email_domain_claims_pkey'
    ) {
      throw domainsTaken(await selectDomainsClaimedElsewhere(db, institutionId ?? '', domains));
    }
    throw error;
  }
  return getProvider(db, institutionId);
}

/**
 * The operator confirms the institution's current issuer: people who existed before it was set
 * may now be linked to it by their verified email (docs/sign-in.md).
 */
export async function confirmProvider(
  { db, clock }: Pick<ProviderDeps, 'db' | 'clock'>,
  institutionId: string,
): Promise<IdentityProvider> {
  if (!(await clearLinksHold(db, institutionId, clock.now()))) throw noProvider();
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
