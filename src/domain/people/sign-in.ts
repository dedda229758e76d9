// The sign-in flow, from "sign in to this institution" to a session:
// 1. begin: find the institution's provider, ask the OIDC client for the authorization URL
//    (PKCE S256, state, nonce) and keep the flow server-side (state hashed, verifier
//    encrypted) for ten minutes; the browser also gets the state in a cookie, so a callback
//    that arrives in another browser (login CSRF) is refused.
// 2. complete: the callback's state must equal the cookie's and name a flow that is deleted
//    as it is read (a replayed callback finds nothing); the client validates the code and the
//    id token; matching finds the person or student; a session starts.
// Every failure is a SignInFailure with a stable code, shown on a page: never a 500 and never
// a session. One-time operator links sign the operator in without a provider.
import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/db.ts';
import { clientNetwork } from '../../lib/client-network.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/encryption.ts';
import { generateSecret, sha256Hex } from '../../lib/secrets.ts';
import type { IdentityProviders } from './identity-providers.ts';
import { type MatchFailure, matchIdentity } from './matching.ts';
import { type OidcClient, SignInError } from './oidc-client.ts';
import type { Sessions } from './sessions.ts';

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

export interface SignInDeps {
  db: Db;
  clock: Clock;
  keyring: Keyring;
  oidc: OidcClient;
  sessions: Sessions;
  providers: IdentityProviders;
  publicBaseUrl: string;
  /** Sign-ins under way at most (SIGN_IN_PENDING_MAX). */
  pendingMax: number;
  /** Sign-ins under way to one institution at most (SIGN_IN_PENDING_PER_INSTITUTION). */
  pendingPerInstitution: number;
  /** Sign-ins under way from one client network (/24, /64) at most (SIGN_IN_PENDING_PER_NETWORK). */
  pendingPerNetwork: number;
}

/** Sign-ins under way in all, to the institution and from the network, each counted up to its cap. */
async function countPending(
  db: Db,
  caps: {
    now: Date;
    institutionId: string | null;
    network: string;
    total: number;
    institution: number;
    perNetwork: number;
  },
) {
  const { rows } = await db.query<{ total: number; institution: number; network: number }>(
    `SELECT
       (SELECT count(*)::int FROM (SELECT 1 FROM sign_in_flows WHERE expires_at > c.now LIMIT c.total) f) AS total,
       (SELECT count(*)::int FROM (SELECT 1 FROM sign_in_flows
          WHERE institution_id IS NOT DISTINCT FROM c.institution_id AND expires_at > c.now LIMIT c.institution) f) AS institution,
       (SELECT count(*)::int FROM (SELECT 1 FROM sign_in_flows
          WHERE client_network = c.network AND expires_at > c.now LIMIT c.per_network) f) AS network
     FROM json_to_record($1::json) AS c(now timestamptz, institution_id uuid, network text,
                                        total int, institution int, per_network int)`,
    [
      JSON.stringify({
        now: caps.now,
        institution_id: caps.institutionId,
        network: caps.network,
        total: caps.total,
        institution: caps.institution,
        per_network: caps.perNetwork,
      }),
    ],
  );
  return rows[0];
}

/** Refuses a start beyond a cap: the platform's or the institution's (503), or the network's (429). */
function assertUnderCaps(pending: { total: number; institution: number; network: number }, deps: SignInDeps) {
  if (pending.network >= deps.pendingPerNetwork) {
    throw new SignInFailure(
      'sign_in_busy_network',
      'Too many sign-ins from your network are under way right now. Finish or abandon them, or try again in a few minutes.',
      429,
    );
  }
  if (pending.total >= deps.pendingMax || pending.institution >= deps.pendingPerInstitution) {
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

export function createSignIn(deps: SignInDeps) {
  const { db, clock, keyring, oidc, sessions, providers } = deps;
  const redirectUri = redirectUriOf(deps.publicBaseUrl);

  const clientFailure = (error: unknown): SignInFailure => {
    if (!(error instanceof SignInError)) throw error;
    return new SignInFailure(error.code, error.message, providerFaults.has(error.code) ? 502 : 400);
  };

  return {
    redirectUri,

    /** Starts a sign-in to an institution (or, with null, the platform's operator provider). */
    async begin(
      institutionId: string | null,
      returnTo?: string,
      clientAddress = 'unknown',
    ): Promise<{ url: string; state: string }> {
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
        await countPending(db, {
          now,
          institutionId,
          network,
          total: deps.pendingMax,
          institution: deps.pendingPerInstitution,
          perNetwork: deps.pendingPerNetwork,
        }),
        deps,
      );
      const provider = await providers.forSignIn(institutionId);
      if (!provider) {
        throw new SignInFailure(
          'sso_not_configured',
          'Single sign-on is not set up for this institution yet. An administrator configures it in the console.',
          404,
        );
      }
      let start: Awaited<ReturnType<OidcClient['startSignIn']>>;
      try {
        start = await oidc.startSignIn(provider, redirectUri);
      } catch (error) {
        throw clientFailure(error);
      }
      await db.query(
        `INSERT INTO sign_in_flows (state_hash, institution_id, nonce, code_verifier_encrypted, return_to, created_at, expires_at,
                                    client_network)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          sha256Hex(start.state),
          institutionId,
          start.nonce,
          keyring.encrypt(start.codeVerifier),
          safeReturnTo(returnTo),
          now,
          new Date(now.getTime() + FLOW_MINUTES * 60_000),
          network,
        ],
      );
      // Flows abandoned at the provider are swept as new ones start (cheap: indexed by expiry).
      await db.query('DELETE FROM sign_in_flows WHERE expires_at < $1', [now]);
      return { url: start.url, state: start.state };
    },

    /** Completes the callback; `browserState` is the state kept in the browser's cookie. */
    async complete(callbackUrl: URL, browserState: string | undefined): Promise<SignInComplete> {
      const state = callbackUrl.searchParams.get('state');
      if (!state || state.length > 512) {
        throw new SignInFailure('state_missing', 'The sign-in answer carries no state. Start again.');
      }
      if (!browserState || !sameText(state, browserState)) {
        throw new SignInFailure(
          'state_mismatch',
          'This sign-in was not started in this browser, or it was started again since. Start again.',
        );
      }
      const now = clock.now();
      const { rows } = await db.query<{
        institution_id: string | null;
        nonce: string;
        code_verifier_encrypted: string;
        return_to: string | null;
        expires_at: Date;
      }>(
        `DELETE FROM sign_in_flows WHERE state_hash = $1
         RETURNING institution_id, nonce, code_verifier_encrypted, return_to, expires_at`,
        [sha256Hex(state)],
      );
      const flow = rows[0];
      if (!flow || flow.expires_at <= now) {
        throw new SignInFailure(
          'state_expired',
          'This sign-in has expired or was used already. Start again.',
        );
      }
      const provider = await providers.forSignIn(flow.institution_id);
      if (!provider)
        throw new SignInFailure('sso_not_configured', 'Single sign-on is no longer set up here.', 404);
      let identity: Awaited<ReturnType<OidcClient['finishSignIn']>>;
      try {
        identity = await oidc.finishSignIn(provider, redirectUri, callbackUrl, {
          state,
          nonce: flow.nonce,
          codeVerifier: keyring.decrypt(flow.code_verifier_encrypted),
        });
      } catch (error) {
        throw clientFailure(error);
      }
      return db.transaction(async (tx) => {
        const match = await matchIdentity(tx, flow.institution_id, identity, now);
        if ('failure' in match) throw new SignInFailure(match.failure, matchMessages[match.failure], 403);
        const party = match.party;
        const session =
          flow.institution_id === null
            ? await sessions.create({ kind: 'person', personId: party.id, institutionId: null }, tx)
            : party.kind === 'person'
              ? await sessions.create(
                  { kind: 'person', personId: party.id, institutionId: flow.institution_id },
                  tx,
                )
              : await sessions.create(
                  { kind: 'student', studentId: party.id, institutionId: flow.institution_id },
                  tx,
                );
        return {
          token: session.token,
          expiresAt: session.expiresAt,
          kind: flow.institution_id === null ? 'operator' : party.kind,
          returnTo: flow.return_to,
        };
      });
    },

    /** Mints a one-time operator sign-in link (valid a day). */
    async mintOperatorLink(): Promise<{ url: string; expiresAt: Date }> {
      const token = generateSecret('ssp_link_');
      const expiresAt = new Date(clock.now().getTime() + OPERATOR_LINK_HOURS * 3_600_000);
      await db.query('INSERT INTO operator_sign_in_links (token_hash, expires_at) VALUES ($1, $2)', [
        sha256Hex(token),
        expiresAt,
      ]);
      return { url: `${deps.publicBaseUrl}/auth/operator-link/${token}`, expiresAt };
    },

    /** Consumes a one-time operator link: an operator session, or a failure. */
    async useOperatorLink(token: string): Promise<SignInComplete> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<{ token_hash: string }>(
          `UPDATE operator_sign_in_links SET used_at = $2
           WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING token_hash`,
          [sha256Hex(token.slice(0, 200)), now],
        );
        if (!rows[0]) {
          throw new SignInFailure(
            'link_expired',
            'This sign-in link has expired or was used already. Mint a new one with `npx ssp operator-link`.',
          );
        }
        const session = await sessions.create({ kind: 'operator' }, tx);
        return { token: session.token, expiresAt: session.expiresAt, kind: 'operator', returnTo: null };
      });
    },
  };
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

export type SignIn = ReturnType<typeof createSignIn>;
