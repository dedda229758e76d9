// A development and test OpenID provider built on oidc-provider: real discovery, real signed
// id tokens, real authorization codes, PKCE required. Never for production: anyone who reaches it
// signs in as any demo person by pressing a button.
//
// - Interactions: one server-rendered page listing the people as buttons (and a cancel button,
//   which returns `error=access_denied` to the client). The consent step is granted at once: the
//   clients are the platform itself. The provider asks who you are at every sign-in (it keeps no
//   sign-in of its own between them), so switching demo people needs no sign-out.
// - Tests drive the same pages with plain HTTP (test/helpers/idp.ts): follow redirects by hand,
//   post the form, stop at the client's redirect URI.
// - `rotateKeys()` replaces the signing key (new key id, old key withdrawn from the JWKS at once,
//   the hardest case for a client); codes and grants already issued survive it.
// - `setPeople()` replaces the people between sign-ins (a changed email or email_verified).
import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import Provider, { type Configuration, interactionPolicy, type JWK } from 'oidc-provider';
import { createMemoryStore } from './memory-adapter.ts';
import { choosePersonPage, type DevPerson, escapeHtml } from './pages.ts';

export type { DevPerson } from './pages.ts';

export interface DevClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface DevIdpOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A path the issuer ends with (like Keycloak's `/realms/x`), e.g. `/idp`. Default: none. */
  issuerPath?: string;
  /**
   * The issuer when the provider is reached through a proxy, e.g. http://127.0.0.1:8080/idp (its
   * path is then the path served). Default: http://host:port plus issuerPath.
   */
  issuer?: string;
  people: readonly DevPerson[];
  clients: readonly DevClient[];
  /**
   * Whether email and name are in the id token (default true, as Entra ID, Google and Keycloak
   * do). False keeps the id token to `sub` and leaves the claims to the userinfo endpoint, as Okta
   * does by default.
   */
  claimsInIdToken?: boolean;
}

export interface DevIdp {
  /** The issuer identifier, e.g. http://127.0.0.1:4000 (no trailing slash). */
  issuer: string;
  /** Where it really listens, e.g. http://127.0.0.1:4000 (differs from the issuer behind a proxy). */
  listenUrl: string;
  close(): Promise<void>;
  /** Replaces the signing key with a new one (new `kid`); returns the new key id. */
  rotateKeys(): Promise<string>;
  /** Replaces the demo people (takes effect at the next sign-in). */
  setPeople(people: readonly DevPerson[]): void;
}

const generateRsa = promisify(generateKeyPair);

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' } as JWK;
}

const MAX_FORM_BYTES = 8 * 1024;

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new Error('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

function errorPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><h1>Sign-in error</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/** What a provider of the development sign-in needs to be configured. */
interface ProviderSetup {
  key: JWK;
  store: ReturnType<typeof createMemoryStore>;
  clients: DevIdpOptions['clients'];
  cookieKeys: string[];
  claimsInIdToken: boolean;
  prefix: string;
  person(sub: string): DevPerson | undefined;
}

/** The oidc-provider configuration: PKCE, the clients, a person chosen at every sign-in. */
function configuration({
  key,
  store,
  clients,
  cookieKeys,
  claimsInIdToken,
  prefix,
  person: find,
}: ProviderSetup): Configuration {
  const policy = interactionPolicy.base();
  // Ask at every sign-in, even when the provider still remembers the last person: a developer
  // switches between demo people, and each test names the person it signs in as.
  policy
    .get('login')
    ?.checks.add(
      new interactionPolicy.Check('choose_person', 'the development provider asks at every sign-in', (ctx) =>
        ctx.oidc.result?.login
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );
  return {
    adapter: store,
    clients: clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      redirect_uris: [...c.redirect_uris],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [key] },
    cookies: { keys: cookieKeys },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: !claimsInIdToken,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    // Seconds. Set explicitly (the library's defaults are functions that print a notice).
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 3600,
      Grant: 3600,
    },
    interactions: { policy, url: (_ctx, interaction) => `${prefix}/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const person = find(sub);
      if (!person) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: person.email,
          email_verified: person.email_verified,
          name: person.name,
        }),
      };
    },
  };
}

/** The provider's interaction pages: choose a person, grant what the platform asks, or cancel. */
async function interact(
  current: Provider,
  prefix: string,
  people: ReadonlyMap<string, DevPerson>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  action: string | undefined,
) {
  let details: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    details = await current.interactionDetails(req, res);
  } catch {
    sendHtml(res, 400, errorPage('This sign-in has expired or was already used. Start again.'));
    return;
  }
  const base = `${prefix}/interaction/${details.uid}`;
  if (req.method === 'GET' && action === undefined) {
    if (details.prompt.name === 'login') {
      sendHtml(
        res,
        200,
        choosePersonPage({
          loginAction: `${base}/login`,
          abortAction: `${base}/abort`,
          clientId: String(details.params.client_id),
          people: [...people.values()],
        }),
      );
      return;
    }
    // Consent: the clients are the platform itself, so what they ask for is granted.
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant = details.grantId
      ? ((await current.Grant.find(details.grantId)) ??
        new current.Grant({
          accountId: details.session?.accountId,
          clientId: String(details.params.client_id),
        }))
      : new current.Grant({
          accountId: details.session?.accountId,
          clientId: String(details.params.client_id),
        });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    await current.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  if (req.method !== 'POST') {
    sendHtml(res, 405, errorPage('Method not allowed.'));
    return;
  }
  if (action === 'abort') {
    await current.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The person cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch {
    sendHtml(res, 413, errorPage('The form is too large.'));
    return;
  }
  const sub = form.get('sub') ?? '';
  if (!people.has(sub)) {
    sendHtml(res, 400, errorPage(`No demo person has the subject "${sub}".`));
    return;
  }
  await current.interactionFinished(
    req,
    res,
    { login: { accountId: sub } },
    { mergeWithLastSubmission: false },
  );
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const host = options.host ?? '127.0.0.1';
  const prefix = (options.issuer ? new URL(options.issuer).pathname : (options.issuerPath ?? '')).replace(
    /\/+$/,
    '',
  );
  if (prefix !== '' && !prefix.startsWith('/')) throw new TypeError('issuerPath must start with "/"');
  let people = new Map(options.people.map((p) => [p.sub, { ...p }]));
  const store = createMemoryStore();
  const cookieKeys = [randomBytes(32).toString('base64url')];
  const claimsInIdToken = options.claimsInIdToken ?? true;

  let provider: Provider | undefined;
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => unknown) | undefined;

  const server = http.createServer((req, res) => {
    route(req, res).catch((error) => {
      if (!res.headersSent) sendHtml(res, 500, errorPage((error as Error).message));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const issuer = options.issuer?.replace(/\/+$/, '') ?? `http://${hostPart}:${address.port}${prefix}`;

  async function install(): Promise<string> {
    const key = await newSigningKey();
    const next = new Provider(
      issuer,
      configuration({
        key,
        store,
        clients: options.clients,
        cookieKeys,
        claimsInIdToken,
        prefix,
        person: (sub) => people.get(sub),
      }),
    );
    provider = next;
    handler = next.callback();
    return key.kid as string;
  }
  await install();

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    if (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
      sendHtml(res, 404, errorPage('Not found.'));
      return;
    }
    const rest = url.pathname.slice(prefix.length) || '/';
    const interaction = /^\/interaction\/([^/]+)(?:\/(login|abort))?$/.exec(rest);
    if (interaction) return interact(provider!, prefix, people, req, res, interaction[2]);
    if (prefix !== '') {
      // oidc-provider finds its mount path by comparing originalUrl with url (as under express).
      (req as { originalUrl?: string }).originalUrl = req.url;
      req.url = (req.url ?? '/').slice(prefix.length) || '/';
    }
    await handler!(req, res);
  }

  return {
    issuer,
    listenUrl: `http://${hostPart}:${address.port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    rotateKeys: install,
    setPeople(next) {
      people = new Map(next.map((p) => [p.sub, { ...p }]));
    },
  };
}
