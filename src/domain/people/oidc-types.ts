// What the sign-in flow needs of an OpenID Connect client: discovery and the authorization
// URL (PKCE S256, state, nonce), then the validated identity from a callback. The
// implementation (oidc-client.ts, on openid-client) throws SignInError with a stable code.
export interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface SignInStart {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
}

export interface OidcClient {
  startSignIn(provider: ProviderSettings, redirectUri: string): Promise<SignInStart>;
  finishSignIn(
    provider: ProviderSettings,
    redirectUri: string,
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<VerifiedIdentity>;
  check(provider: ProviderSettings): Promise<void>;
}

/** The stable code of an OIDC client failure; `provider_error` for anything unexpected. */
export function signInErrorCode(error: unknown): string {
  if (error instanceof Error && error.name === 'SignInError') {
    const code = (error as Error & { code?: unknown }).code;
    if (typeof code === 'string' && /^[a-z_]{1,60}$/.test(code)) return code;
  }
  return 'provider_error';
}
