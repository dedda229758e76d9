// The sign-in flow, from "sign in to this institution" to a session:
// 1. begin: find the institution's provider, ask the OIDC client for the authorization URL
//    (PKCE S256, state, nonce) and keep the flow server-side (state hashed, verifier
//    encrypted) for ten minutes; the browser also gets the state in a cookie, so a callback
//    that arrives in another browser (login CSRF) is refused.
// 2. complete: the callback's state must equal the cookie's and name a flow that is deleted
//    as it is read (a replayed callback finds nothing); the client validates the code and the
//    id token; matching finds the person or student; a session starts.
// Every failure is a SignInFailure with a stable code, shown on a page: never a 500 and never
// a session. One-time operator links sign the operator in without a provider. The caps on
// sign-ins under way and the public base URL are the configuration's; the SQL is in ./queries/sign-in.ts.
import { timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import { clientNetwork } from '../../lib/client-network.ts';
import { generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Deps } from '../deps.ts';
import { providerForSignIn } from './identity-providers.ts';
import { type MatchFailure, matchIdentity, type Party } from './matching.ts';
import type { PendingSignIns, SignInFlow } from './model.ts';
import { type OidcClient, type ProviderSettings, SignInError } from './oidc-client.ts';
import {
  countPendingSignIns,
  deleteExpiredSignInFlows,
  insertOperatorLink,
  insertSignInFlow,
  takeSignInFlow,
  useOperatorLinkRow,
} from './queries/sign-in.ts';
import { startSession } from './sessions.ts';

const FLOW_MINUTES = 10;
const OPERATOR_LINK_HOURS = 24;

/** Why a sign-in ended without a session; `code` is shown on the page and is stable. */
export class SignInFailure extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status = 400) {
    super(message);
    this.name = 'SignInFailure';
    this.code = code;
    this.status = status;
  }
}

const matchMessages: Record<MatchFailure, string> = {
  person_not_found:
    'Your account is not known here. Staff are invited by an administrator of the institution; students are added by its student records system.',
  email_not_verified: 'Your identity provider has not verified your email address, so it cannot be matched.',
  identity_conflict:
    'This person is already linked to another account at your identity provider. Sign in with that account, or ask an administrator.',
  email_ambiguous:
    'Your email address contains characters that read as other letters when capitals are ignored, so it cannot be matched safely. Ask an administrator.',
  link_confirmation_required:
    "Your institution's sign-in provider was changed recently, and accounts that existed before the change can use it only once the platform operator has confirmed it. Ask an administrator to contact the operator.",
};

/** Failures of the provider rather than of this sign-in answer 502; the rest 400. */
const providerFaults = new Set([
  'provider_unreachable',
  'url_not_allowed',
  'discovery_failed',
  'provider_error',
  'client_rejected',
]);

/**
 * What a sign-in uses: the database and clock, the keyring (the code verifier is kept
 * encrypted), the OIDC client, and the configuration (PUBLIC_BASE_URL, the SIGN_IN_PENDING_* caps).
 */
export type SignInDeps = Pick<Deps, 'db' | 'clock' | 'keyring' | 'oidc' | 'config'>;

/** Refuses a start beyond a cap: the platform's or the institution's (503), or the network's (429). */
function assertUnderCaps(pending: PendingSignIns, config: SignInDeps['config']) {
  if (pending.network >= config.signInPendingPerNetwork) {
    throw new SignInFailure(
      'sign_in_busy_network',
      'Too many sign-ins from your network are under way right now. Finish or abandon them, or try again in a few minutes.',
      429,
    );
  }
  if (pending.total >= config.signInPendingMax || pending.institution >= config.signInPendingPerInstitution) {
    throw new SignInFailure(
      'sign_in_busy',
      'Too many sign-ins are under way right now. Try again in a few minutes.',
      503,
    );
  }
}

/** Printable ASCII only: what a path and query may hold once a browser has encoded them. */
const printableAscii = /^[\x21-\x7e]*$/;

export interface SignInComplete {
  token: string;
  expiresAt: Date;
  kind: 'person' | 'student' | 'operator';
  returnTo: string | null;
}

/**
 * The redirect URI every institution's provider must accept: the service's one callback at its
 * public base URL (PUBLIC_BASE_URL). The people page shows it to register.
 */
export function redirectUriOf(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/auth/callback`;
}

/** A failure of the OIDC client as a sign-in failure (anything else is rethrown). */
function clientFailure(error: unknown): SignInFailure {
  if (!(error instanceof SignInError)) throw error;
  return new SignInFailure(error.code, error.message, providerFaults.has(error.code) ? 502 : 400);
}

/** The provider a sign-in to the institution (null: the platform) goes through, or 404. */
async function signInProvider(
  deps: SignInDeps,
  institutionId: string | null,
  message: string,
): Promise<ProviderSettings> {
  const provider = await providerForSignIn(deps, institutionId);
  if (!provider) throw new SignInFailure('sso_not_configured', message, 404);
  return provider;
}

/** Starts a sign-in to an institution (or, with null, the platform's operator provider). */
export async function beginSignIn(
  deps: SignInDeps,
  institutionId: string | null,
  returnTo?: string,
  clientAddress = 'unknown',
): Promise<{ url: string; state: string }> {
  const { db, clock, keyring, oidc, config } = deps;
  // Refused here, not after the provider's round trip: a control character cannot go into
  // the Location header the callback answers with.
  if (returnTo !== undefined && !printableAscii.test(returnTo)) {
    throw new SignInFailure(
      'return_to_invalid',
      'The page to return to after signing in is not a valid address. Start again from the page you wanted.',
    );
  }
  const now = clock.now();
  // Rows cost storage and every start writes one without a credential: beyond a cap, starts
  // wait until abandoned flows expire (ten minutes) instead of growing the table. The caps per
  // institution and per client network keep one network from filling the platform's cap.
  const network = clientNetwork(clientAddress);
  assertUnderCaps(
    await countPendingSignIns(db, {
      now,
      institutionId,
      network,
      total: config.signInPendingMax,
      institution: config.signInPendingPerInstitution,
      perNetwork: config.signInPendingPerNetwork,
    }),
    config,
  );
  const provider = await signInProvider(
    deps,
    institutionId,
    'Single sign-on is not set up for this institution yet. An administrator configures it in the console.',
  );
  let start: Awaited<ReturnType<OidcClient['startSignIn']>>;
  try {
    start = await oidc.startSignIn(provider, redirectUriOf(config.publicBaseUrl));
  } catch (error) {
    throw clientFailure(error);
  }
  await insertSignInFlow(db, {
    stateHash: sha256Hex(start.state),
    institutionId,
    nonce: start.nonce,
    codeVerifierEncrypted: keyring.encrypt(start.codeVerifier),
    returnTo: safeReturnTo(returnTo),
    now,
    expiresAt: new Date(now.getTime() + FLOW_MINUTES * 60_000),
    network,
  });
  // Flows abandoned at the provider are swept as new ones start.
  await deleteExpiredSignInFlows(db, now);
  return { url: start.url, state: start.state };
}

/** The flow a callback's state names, taken (deleted) once the browser's cookie vouches for it. */
async function takeFlow(
  { db, clock }: Pick<SignInDeps, 'db' | 'clock'>,
  state: string | null,
  browserState: string | undefined,
): Promise<SignInFlow & { state: string }> {
  if (!state || state.length > 512) {
    throw new SignInFailure('state_missing', 'The sign-in answer carries no state. Start again.');
  }
  if (!browserState || !sameText(state, browserState)) {
    throw new SignInFailure(
      'state_mismatch',
      'This sign-in was not started in this browser, or it was started again since. Start again.',
    );
  }
  const flow = await takeSignInFlow(db, sha256Hex(state));
  if (!flow || flow.expires_at <= clock.now()) {
    throw new SignInFailure('state_expired', 'This sign-in has expired or was used already. Start again.');
  }
  return { ...flow, state };
}

/** The session of a matched party: an operator's at the platform's provider, else the person's or student's. */
function partySession(deps: SignInDeps, institutionId: string | null, party: Party, tx: Queryable) {
  if (institutionId === null)
    return startSession(deps, { kind: 'person', personId: party.id, institutionId: null }, tx);
  return party.kind === 'person'
    ? startSession(deps, { kind: 'person', personId: party.id, institutionId }, tx)
    : startSession(deps, { kind: 'student', studentId: party.id, institutionId }, tx);
}

/** Completes the callback; `browserState` is the state kept in the browser's cookie. */
export async function completeSignIn(
  deps: SignInDeps,
  callbackUrl: URL,
  browserState: string | undefined,
): Promise<SignInComplete> {
  const { db, clock, keyring, oidc, config } = deps;
  const now = clock.now();
  const flow = await takeFlow(deps, callbackUrl.searchParams.get('state'), browserState);
  const provider = await signInProvider(
    deps,
    flow.institution_id,
    'Single sign-on is no longer set up here.',
  );
  let identity: Awaited<ReturnType<OidcClient['finishSignIn']>>;
  try {
    identity = await oidc.finishSignIn(provider, redirectUriOf(config.publicBaseUrl), callbackUrl, {
      state: flow.state,
      nonce: flow.nonce,
      codeVerifier: keyring.decrypt(flow.code_verifier_encrypted),
    });
  } catch (error) {
    throw clientFailure(error);
  }
  return db.transaction(async (tx) => {
    const match = await matchIdentity(tx, flow.institution_id, identity, now);
    if ('failure' in match) throw new SignInFailure(match.failure, matchMessages[match.failure], 403);
    const session = await partySession(deps, flow.institution_id, match.party, tx);
    return {
      token: session.token,
      expiresAt: session.expiresAt,
      kind: flow.institution_id === null ? 'operator' : match.party.kind,
      returnTo: flow.return_to,
    };
  });
}

/** Mints a one-time operator sign-in link (valid a day). */
export async function mintOperatorLink({
  db,
  clock,
  config,
}: Pick<SignInDeps, 'db' | 'clock' | 'config'>): Promise<{ url: string; expiresAt: Date }> {
  const token = generateSecret('ssp_link_');
  const expiresAt = new Date(clock.now().getTime() + OPERATOR_LINK_HOURS * 3_600_000);
  await insertOperatorLink(db, sha256Hex(token), expiresAt);
  return { url: `${config.publicBaseUrl}/auth/operator-link/${token}`, expiresAt };
}

/** Consumes a one-time operator link: an operator session, or a failure. */
export async function useOperatorLink(
  deps: Pick<SignInDeps, 'db' | 'clock' | 'config'>,
  token: string,
): Promise<SignInComplete> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    if (!(await useOperatorLinkRow(tx, sha256Hex(token.slice(0, 200)), now))) {
      throw new SignInFailure(
        'link_expired',
        'This sign-in link has expired or was used already. Mint a new one with `npx ssp operator-link`.',
      );
    }
    const session = await startSession(deps, { kind: 'operator' }, tx);
    return { token: session.token, expiresAt: session.expiresAt, kind: 'operator', returnTo: null };
  });
}

/** Only a path of this service may be returned to after sign-in (no open redirect). */
export function safeReturnTo(value: string | undefined): string | null {
  if (!value || value.length > 500) return null;
  if (!/^\/(console|app)(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?(\?[\x21-\x22\x24-\x7e]*)?$/.test(value))
    return null;
  if (value.includes('//') || value.includes('\\')) return null;
  return value;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
