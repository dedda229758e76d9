// OpenID Connect relying party for institution sign-in, on openid-client (no JOSE code of ours):
// authorization code flow with PKCE (S256), state and nonce; the id token validated fully
// (issuer, audience, expiry, nonce, signature).
//
// - Discovery is cached per issuer for `discoveryTtlMs` (5 minutes), then fetched again; a failed
//   discovery is not cached. `check()` always fetches afresh (an admin saving settings).
// - Every request to the provider goes through the outbound URL guard (guarded-fetch.ts): the
//   issuer, and every endpoint discovery names, must be https and public (plain-http loopback
//   only with `allowLoopback`); checked again on the address connected to.
// - Signing keys: the JWKS is cached per issuer (reused for 4 to 5 minutes). A token signed with a
//   key id the cache does not hold makes the client fetch the JWKS again at once and retry, so a
//   provider's key rotation never fails a sign-in. (The library alone waits 60 s between such
//   refetches to resist tokens with made-up key ids; here id tokens only ever come from the
//   token endpoint over a connection this service opened, so no third party can force refetches.)
// - Time: the injected clock is applied as a clock skew on each call, so tests can age tokens.
// - Cost per sign-in: start = 0 requests when discovery is cached (1 otherwise); finish = 1 token
//   request, plus 1 JWKS request when the keys are not cached or have rotated, plus 1 userinfo
//   request when the id token carries no email.
// - Every failure is a SignInError with a stable code (sign-in-error.ts); never a library error.
import type dns from 'node:dns';
import * as client from 'openid-client';
import { type Clock, systemClock } from '../../lib/clock.ts';
import {
  checkOutboundUrl,
  checkUrlSyntax,
  type OutboundPolicy,
  type Resolver,
} from '../../lib/outbound-url.ts';
import { createGuardedFetch } from './guarded-fetch.ts';
import { classifyFailure, SignInError } from './sign-in-error.ts';

export type { OutboundPolicy } from '../../lib/outbound-url.ts';
export { SIGN_IN_ERROR_CODES, SignInError, type SignInErrorCode } from './sign-in-error.ts';

export interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface SignInStart {
  /** Where to send the person's browser. */
  url: string;
  /** Keep these three server-side (or sealed) until the callback; never in the URL. */
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface VerifiedIdentity {
  /** The issuer identifier exactly as the provider states it. */
  issuer: string;
  subject: string;
  email?: string;
  /** True only when the provider asserts `email_verified` (true, or the string "true"). */
  emailVerified: boolean;
  name?: string;
}

export interface OidcClientDeps {
  policy: OutboundPolicy;
  clock?: Clock;
  /** Timeout of each request to the provider (default 10 s). */
  timeoutMs?: number;
  /** How long a discovery document is reused (default 5 minutes). */
  discoveryTtlMs?: number;
  /** DNS lookup for connections (tests make a name resolve to a chosen address). */
  lookup?: typeof dns.lookup;
}

export interface OidcClient {
  /** Discovery (cached per issuer for a few minutes), then the authorization URL with PKCE S256, state and nonce. */
  startSignIn(provider: ProviderSettings, redirectUri: string): Promise<SignInStart>;
  /**
   * Validates the callback (state, code exchange with the PKCE verifier, id token: issuer,
   * audience, expiry, nonce, signature; keys fetched again when the provider rotates them) and
   * returns the identity. `redirectUri` must be the one given to startSignIn (without a query).
   */
  finishSignIn(
    provider: ProviderSettings,
    redirectUri: string,
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<VerifiedIdentity>;
  /** Discovery only, always fresh: refuses a bad issuer when an admin saves provider settings. */
  check(provider: ProviderSettings): Promise<void>;
  /** Closes the kept-alive connections. */
  close(): Promise<void>;
}

export const SIGN_IN_SCOPE = 'openid email profile';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_DISCOVERY_TTL_MS = 5 * 60_000;
/** oauth4webapi refetches the JWKS on an unknown key id only when its copy is at least this old. */
const JWKS_REFETCH_AGE_S = 60;

const ENDPOINTS = [
  ['authorization_endpoint', 'authorization endpoint', true],
  ['token_endpoint', 'token endpoint', true],
  ['jwks_uri', 'key set (jwks_uri)', true],
  ['userinfo_endpoint', 'userinfo endpoint', false],
] as const;

/** What discovery must name for this client to work, and the URL policy for each endpoint. */
function checkMetadata(metadata: client.ServerMetadata, policy: OutboundPolicy): void {
  for (const [field, label, required] of ENDPOINTS) {
    const value = metadata[field];
    if (value === undefined && !required) continue;
    if (typeof value !== 'string')
      throw new SignInError(
        'discovery_failed',
        `The identity provider's discovery document names no ${label}.`,
      );
    const verdict = checkUrlSyntax(value, policy);
    if (!verdict.ok)
      throw new SignInError(
        'url_not_allowed',
        `The identity provider's ${label} ${value} is not allowed: ${verdict.reason}.`,
      );
  }
  const responseTypes = metadata.response_types_supported;
  if (Array.isArray(responseTypes) && !responseTypes.includes('code'))
    throw new SignInError(
      'discovery_failed',
      'The identity provider does not offer the authorization code flow.',
    );
  const pkce = metadata.code_challenge_methods_supported;
  if (Array.isArray(pkce) && !pkce.includes('S256'))
    throw new SignInError('discovery_failed', 'The identity provider does not offer PKCE with S256.');
}

/** client_secret_basic unless the provider says it only takes client_secret_post. */
function clientAuth(metadata: client.ServerMetadata, secret: string): client.ClientAuth {
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (
    Array.isArray(methods) &&
    !methods.includes('client_secret_basic') &&
    methods.includes('client_secret_post')
  )
    return client.ClientSecretPost(secret);
  return client.ClientSecretBasic(secret);
}

const stringClaim = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** What the client keeps between calls: its settings, its connections and its caches per issuer. */
interface ClientState {
  policy: OutboundPolicy;
  clock: Clock;
  timeoutS: number;
  discoveryTtlMs: number;
  customFetch: client.CustomFetch;
  discoveries: Map<string, { metadata: Promise<client.ServerMetadata>; expiresAt: number }>;
  keySets: Map<string, client.ExportedJWKSCache>;
}

/** Name resolution through the test's lookup, when one is given (else the system's). */
function resolverOf(lookup: typeof dns.lookup | undefined): Resolver | undefined {
  if (!lookup) return undefined;
  return (hostname) =>
    new Promise((resolve, reject) =>
      lookup(hostname, { all: true }, (error, addresses) =>
        error ? reject(error) : resolve((addresses as unknown as dns.LookupAddress[]).map((a) => a.address)),
      ),
    );
}

function issuerUrl(provider: ProviderSettings, policy: OutboundPolicy): URL {
  const verdict = checkUrlSyntax(provider.issuer, policy);
  if (!verdict.ok)
    throw new SignInError(
      'url_not_allowed',
      `The issuer ${provider.issuer} is not allowed: ${verdict.reason}.`,
    );
  return verdict.url;
}

/** The provider's discovery document: cached per issuer for a while unless `fresh`; a failure is not kept. */
function discover(
  state: ClientState,
  provider: ProviderSettings,
  fresh = false,
): Promise<client.ServerMetadata> {
  const { policy, discoveries } = state;
  let url: URL;
  try {
    url = issuerUrl(provider, policy);
  } catch (error) {
    return Promise.reject(error);
  }
  const key = url.href;
  const now = state.clock.now().getTime();
  const cached = discoveries.get(key);
  if (!fresh && cached && cached.expiresAt > now) return cached.metadata;
  const metadata = (async () => {
    try {
      const config = await client.discovery(url, provider.clientId, undefined, undefined, {
        [client.customFetch]: state.customFetch,
        timeout: state.timeoutS,
        execute: policy.allowLoopback ? [client.allowInsecureRequests] : [],
      });
      const found = config.serverMetadata();
      checkMetadata(found, policy);
      return found;
    } catch (error) {
      throw classifyFailure(error, 'discovery');
    }
  })();
  discoveries.set(key, { metadata, expiresAt: now + state.discoveryTtlMs });
  metadata.catch(() => {
    if (discoveries.get(key)?.metadata === metadata) discoveries.delete(key);
  });
  return metadata;
}

/** A configuration per call: the clock skew is current, and the key cache is seeded. */
function configure(state: ClientState, metadata: client.ServerMetadata, provider: ProviderSettings) {
  const skew = Math.round((state.clock.now().getTime() - Date.now()) / 1000);
  const config = new client.Configuration(
    metadata,
    provider.clientId,
    { client_secret: provider.clientSecret, [client.clockSkew]: skew },
    clientAuth(metadata, provider.clientSecret),
  );
  config[client.customFetch] = state.customFetch;
  config.timeout = state.timeoutS;
  if (state.policy.allowLoopback) client.allowInsecureRequests(config);
  const keys = state.keySets.get(metadata.issuer);
  let seededAt: number | undefined;
  if (keys?.uat !== undefined) {
    // Aged past the library's refetch threshold, so an unknown key id refetches at once.
    seededAt = Math.min(keys.uat, Math.floor(Date.now() / 1000) - JWKS_REFETCH_AGE_S);
    client.setJwksCache(config, { ...keys, uat: seededAt });
  }
  const keepKeys = () => {
    const after = client.getJwksCache(config);
    if (after?.uat !== undefined && after.uat !== seededAt) state.keySets.set(metadata.issuer, after);
  };
  return { config, keepKeys };
}

async function startSignIn(
  state: ClientState,
  provider: ProviderSettings,
  redirectUri: string,
): Promise<SignInStart> {
  const metadata = await discover(state, provider);
  const { config } = configure(state, metadata, provider);
  const codeVerifier = client.randomPKCECodeVerifier();
  const flowState = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SIGN_IN_SCOPE,
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state: flowState,
    nonce,
  });
  return { url: url.href, state: flowState, nonce, codeVerifier };
}

async function finishSignIn(
  state: ClientState,
  provider: ProviderSettings,
  redirectUri: string,
  callbackUrl: URL,
  expected: { state: string; nonce: string; codeVerifier: string },
): Promise<VerifiedIdentity> {
  if (!expected.state || !expected.nonce || !expected.codeVerifier)
    throw new SignInError('state_mismatch', 'No sign-in is in progress for this response.');
  const metadata = await discover(state, provider);
  const { config, keepKeys } = configure(state, metadata, provider);
  // The callback's parameters on the redirect URI the flow started with, so the token request
  // names exactly that URI whatever host or proxy the callback arrived through.
  const current = new URL(redirectUri);
  current.search = callbackUrl.search;
  current.hash = '';
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: expected.codeVerifier,
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw classifyFailure(error, 'exchange');
  } finally {
    keepKeys();
  }
  return identityOf(config, metadata, tokens);
}

/** The identity the id token (or, when it carries no email, the userinfo endpoint) asserts. */
async function identityOf(
  config: client.Configuration,
  metadata: client.ServerMetadata,
  tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>,
): Promise<VerifiedIdentity> {
  const claims = tokens.claims();
  if (!claims) throw new SignInError('token_invalid', 'The identity provider returned no id token.');
  let email = stringClaim(claims.email);
  let emailVerified: unknown = claims.email_verified;
  let name = stringClaim(claims.name);
  // Some providers (Okta by default) keep the id token to `sub` in the code flow.
  if (email === undefined && metadata.userinfo_endpoint && tokens.access_token) {
    try {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = stringClaim(info.email);
      emailVerified = info.email_verified;
      name ??= stringClaim(info.name);
    } catch (error) {
      throw classifyFailure(error, 'userinfo');
    }
  }
  return {
    issuer: claims.iss,
    subject: claims.sub,
    ...(email !== undefined ? { email } : {}),
    emailVerified: email !== undefined && (emailVerified === true || emailVerified === 'true'),
    ...(name !== undefined ? { name } : {}),
  };
}

/** Discovery afresh, then every endpoint's host resolved and checked (an admin saving settings). */
async function checkProvider(state: ClientState, provider: ProviderSettings, resolver?: Resolver) {
  const metadata = await discover(state, provider, true);
  // Discovery connected to the issuer's host; the endpoints may be on other hosts, so their
  // names are resolved now too, to refuse a private address before the settings are saved.
  for (const [field, label] of ENDPOINTS) {
    const value = metadata[field];
    if (typeof value !== 'string') continue;
    const verdict = await checkOutboundUrl(value, state.policy, resolver);
    if (!verdict.ok)
      throw new SignInError(
        'url_not_allowed',
        `The identity provider's ${label} ${value} is not allowed: ${verdict.reason}.`,
      );
  }
}

export function createOidcClient(deps: OidcClientDeps): OidcClient {
  const { policy } = deps;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const guarded = createGuardedFetch({ policy, connectTimeoutMs: timeoutMs, lookup: deps.lookup });
  const resolver = resolverOf(deps.lookup);
  const state: ClientState = {
    policy,
    clock: deps.clock ?? systemClock,
    timeoutS: Math.max(1, Math.ceil(timeoutMs / 1000)),
    discoveryTtlMs: deps.discoveryTtlMs ?? DEFAULT_DISCOVERY_TTL_MS,
    customFetch: (url, options) => guarded.fetch(url, options),
    discoveries: new Map(),
    keySets: new Map(),
  };
  return {
    startSignIn: (provider, redirectUri) => startSignIn(state, provider, redirectUri),
    finishSignIn: (provider, redirectUri, callbackUrl, expected) =>
      finishSignIn(state, provider, redirectUri, callbackUrl, expected),
    check: (provider) => checkProvider(state, provider, resolver),
    close: () => guarded.close(),
  };
}
