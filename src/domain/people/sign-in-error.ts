// The one error a sign-in step throws: a stable code for the page and the logs, a message a person
// or an admin can act on, and never a raw library error (the library's error stays in `cause` for
// the logs only). classifyFailure turns whatever openid-client, the HTTP stack or the outbound URL
// guard threw into one of these codes, knowing which step was running.

export const SIGN_IN_ERROR_CODES = [
  /** Connection refused, DNS failure, reset or timeout talking to the provider. */
  'provider_unreachable',
  /** The issuer or an endpoint discovery names is refused by the outbound URL policy. */
  'url_not_allowed',
  /** Discovery answered, but not with usable OpenID Connect metadata. */
  'discovery_failed',
  /** The issuer in the discovery document, the callback's `iss` or the id token's `iss` is not the configured issuer. */
  'issuer_mismatch',
  /** The callback's `state` is missing or is not the one this sign-in started with. */
  'state_mismatch',
  /** The person cancelled at the provider (`error=access_denied`). */
  'access_denied',
  /** The provider returned another error in the callback, or an unexpected answer from its token endpoint. */
  'provider_error',
  /** The callback carries neither a code nor an error, or is not a callback at all. */
  'callback_invalid',
  /** The token endpoint refused the code: already used, expired, or issued to another client or provider. */
  'code_rejected',
  /** The token endpoint refused the client id or secret. */
  'client_rejected',
  /** The id token is missing, malformed, or its signature does not verify with the provider's keys. */
  'token_invalid',
  /** The id token has expired. */
  'token_expired',
  /** The id token's nonce is not the one this sign-in started with. */
  'nonce_mismatch',
  /** The id token was issued to another client (audience or authorized party). */
  'audience_mismatch',
] as const;

export type SignInErrorCode = (typeof SIGN_IN_ERROR_CODES)[number];

export class SignInError extends Error {
  readonly code: SignInErrorCode;
  constructor(code: SignInErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SignInError';
    this.code = code;
  }
}

/** Thrown by the guarded fetch when a URL is refused before connecting. */
export class OutboundRefusedError extends Error {
  readonly code = 'E_BLOCKED_ADDRESS';
  constructor(url: string, reason: string) {
    super(`refused ${url}: ${reason}`);
    this.name = 'OutboundRefusedError';
  }
}

/** discovery; exchange = the callback's checks and the code exchange with the id token's checks; userinfo. */
export type SignInStep = 'discovery' | 'exchange' | 'userinfo';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
]);

interface ErrorLike {
  name?: string;
  code?: string;
  message?: string;
  error?: string;
  error_description?: string;
  claim?: string;
  attribute?: string;
  cause?: unknown;
}

/** The error and its causes, outermost first (bounded, in case of a cycle). */
function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let current: unknown = error;
  while (current !== null && typeof current === 'object' && out.length < 8) {
    out.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return out;
}

const first = <K extends keyof ErrorLike>(links: ErrorLike[], key: K): ErrorLike[K] | undefined =>
  links.find((l) => typeof l[key] === 'string')?.[key];

const PROVIDER_SAYS = (description: string | undefined) =>
  description ? ` The provider says: ${description.slice(0, 200)}` : '';

/** Maps anything a sign-in step threw to a SignInError. */
export function classifyFailure(error: unknown, step: SignInStep): SignInError {
  if (error instanceof SignInError) return error;
  const links = chain(error);
  const make = (code: SignInErrorCode, message: string) => new SignInError(code, message, { cause: error });
  const codes = links.map((l) => l.code).filter((c): c is string => typeof c === 'string');
  const messages = links.map((l) => l.message ?? '').join(' | ');

  if (codes.includes('E_BLOCKED_ADDRESS'))
    return make(
      'url_not_allowed',
      `The identity provider's address is not allowed: ${links.find((l) => l.code === 'E_BLOCKED_ADDRESS')?.message}`,
    );
  if (codes.includes('OAUTH_HTTP_REQUEST_FORBIDDEN') || codes.includes('OAUTH_REQUEST_PROTOCOL_FORBIDDEN'))
    return make('url_not_allowed', 'The identity provider must be reached over https.');
  if (codes.some((c) => UNREACHABLE.has(c)) || links.some((l) => l.name === 'TimeoutError'))
    return make('provider_unreachable', 'The identity provider could not be reached. Try again in a moment.');

  // The provider answered with an OAuth error: in the callback, or from its token endpoint.
  const authorizationError = links.find((l) => l.code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR');
  if (authorizationError) {
    if (authorizationError.error === 'access_denied')
      return make('access_denied', 'The sign-in was cancelled at the identity provider.');
    return make(
      'provider_error',
      `The identity provider refused the sign-in (${authorizationError.error}).${PROVIDER_SAYS(authorizationError.error_description)}`,
    );
  }
  const bodyError = links.find((l) => l.code === 'OAUTH_RESPONSE_BODY_ERROR');
  if (bodyError) {
    if (step === 'exchange' && bodyError.error === 'invalid_grant')
      return make(
        'code_rejected',
        'The identity provider refused the sign-in code: it was already used, has expired, or was not issued for this sign-in.',
      );
    if (bodyError.error === 'invalid_client' || bodyError.error === 'unauthorized_client')
      return make(
        'client_rejected',
        `The identity provider refused this service's client id or secret (${bodyError.error}).`,
      );
    return make(
      'provider_error',
      `The identity provider answered with an error (${bodyError.error}).${PROVIDER_SAYS(bodyError.error_description)}`,
    );
  }
  if (codes.includes('OAUTH_WWW_AUTHENTICATE_CHALLENGE')) {
    // A 401 challenge from the token endpoint is about the client's own authentication.
    if (step === 'exchange')
      return make('client_rejected', 'The identity provider refused this service’s client id or secret.');
    return make('provider_error', 'The identity provider refused the request for the person’s details.');
  }

  // Comparisons of the callback and of the id token.
  const claim = first(links, 'claim');
  if (codes.includes('OAUTH_JWT_TIMESTAMP_CHECK_FAILED')) {
    if (claim === 'exp') return make('token_expired', 'The identity provider’s sign-in token has expired.');
    return make(
      'token_invalid',
      `The identity provider’s sign-in token is not valid yet or too old (${claim}).`,
    );
  }
  if (codes.includes('OAUTH_JWT_CLAIM_COMPARISON_FAILED')) {
    if (claim === 'iss')
      return make('issuer_mismatch', 'The sign-in token was issued by another identity provider.');
    if (claim === 'aud' || claim === 'azp')
      return make('audience_mismatch', 'The sign-in token was issued to another application.');
    if (claim === 'nonce')
      return make('nonce_mismatch', 'The sign-in token does not belong to this sign-in (nonce).');
    return make('token_invalid', `The sign-in token does not match this sign-in (${claim ?? 'claim'}).`);
  }
  if (codes.includes('OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED')) {
    if (step === 'discovery' || first(links, 'attribute') === 'issuer')
      return make(
        'issuer_mismatch',
        'The identity provider’s discovery document names another issuer than the one configured.',
      );
    return make('provider_error', 'The identity provider’s answer does not match this sign-in.');
  }
  if (step === 'exchange' && codes.includes('OAUTH_INVALID_RESPONSE')) {
    // The callback's own parameters, checked before the code is exchanged.
    if (/response parameter/.test(messages) && /"iss"/.test(messages))
      return make('issuer_mismatch', 'The sign-in response comes from another identity provider.');
    if (/response parameter/.test(messages) && /"state"/.test(messages))
      return make('state_mismatch', 'This sign-in response does not belong to the sign-in in progress.');
    if (/authorization code|provided only once|JARM/.test(messages))
      return make('callback_invalid', 'This is not a valid sign-in response from the identity provider.');
  }
  if (step === 'discovery')
    return make(
      'discovery_failed',
      'The identity provider’s discovery document could not be read as OpenID Connect metadata.',
    );
  if (
    step === 'exchange' &&
    (codes.includes('OAUTH_KEY_SELECTION_FAILED') ||
      codes.includes('OAUTH_PARSE_ERROR') ||
      /signature|ID Token|JWT|id_token/i.test(messages))
  )
    return make('token_invalid', 'The identity provider’s sign-in token could not be verified.');
  return make('provider_error', 'The identity provider gave an answer this service cannot use.');
}
