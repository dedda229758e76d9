// The OpenID Connect client against real providers (src/dev-idp on 127.0.0.1) over real HTTP:
// every sign-in walks the provider's pages, every token is a real signed id token.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createOidcClient,
  type OidcClient,
  type ProviderSettings,
  SignInError,
  type SignInErrorCode,
} from '../../src/domain/people/oidc-client.ts';
import {
  type DevIdp,
  signInThroughProvider,
  startTestIdp,
  TEST_CLIENT,
  TEST_PEOPLE,
} from '../helpers/idp.ts';

const REDIRECT = TEST_CLIENT.redirect_uris[0];
const loopback = { allowLoopback: true };

const settingsOf = (idp: { issuer: string }, client = TEST_CLIENT): ProviderSettings => ({
  issuer: idp.issuer,
  clientId: client.client_id,
  clientSecret: client.client_secret,
});

async function rejectsWith(promise: Promise<unknown>, code: SignInErrorCode): Promise<SignInError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SignInError, `expected a SignInError, got ${String(error)}`);
    assert.equal(error.code, code, `${error.code}: ${error.message}`);
    assert.ok(error.message.length > 0);
    return error;
  }
  assert.fail(`expected a SignInError ${code}, but it succeeded`);
}

/** A reverse proxy in front of a provider: counts requests, and may rewrite them on the way. */
interface Relay {
  url: string;
  target: string;
  hits: string[];
  rewrite?: (method: string, path: string, headers: http.OutgoingHttpHeaders) => void;
  close(): Promise<void>;
}

async function startRelay(): Promise<Relay> {
  const relay: Relay = { url: '', target: '', hits: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://relay').pathname;
    relay.hits.push(`${req.method} ${path}`);
    const headers: http.OutgoingHttpHeaders = { ...req.headers };
    relay.rewrite?.(req.method ?? 'GET', path, headers);
    const upstream = http.request(`${relay.target}${req.url}`, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return relay;
}

/** A plain server answering every request with one JSON document (or a status). */
async function startDocumentServer(answer: (self: string) => { status: number; body: string }) {
  let self = '';
  const server = http.createServer((_req, res) => {
    const { status, body } = answer(self);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function signIn(client: OidcClient, provider: ProviderSettings, sub: string) {
  const start = await client.startSignIn(provider, REDIRECT);
  const callback = await signInThroughProvider(start.url, sub);
  return { start, callback };
}

describe('OpenID Connect client against a real provider', () => {
  let idp: DevIdp;
  let other: DevIdp;
  let client: OidcClient;

  before(async () => {
    [idp, other] = await Promise.all([startTestIdp(), startTestIdp()]);
    client = createOidcClient({ policy: loopback });
  });
  after(async () => {
    await client.close();
    await Promise.all([idp.close(), other.close()]);
  });

  test('happy path: PKCE S256, state, nonce, and a verified identity', async () => {
    const provider = settingsOf(idp);
    const start = await client.startSignIn(provider, REDIRECT);
    const url = new URL(start.url);
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('client_id'), TEST_CLIENT.client_id);
    assert.equal(url.searchParams.get('redirect_uri'), REDIRECT);
    assert.equal(url.searchParams.get('scope'), 'openid email profile');
    assert.equal(url.searchParams.get('state'), start.state);
    assert.equal(url.searchParams.get('nonce'), start.nonce);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(
      url.searchParams.get('code_challenge'),
      createHash('sha256').update(start.codeVerifier).digest('base64url'),
    );
    const callback = await signInThroughProvider(start.url, 'sub-ana');
    assert.ok(callback.searchParams.get('code'));
    const identity = await client.finishSignIn(provider, REDIRECT, callback, start);
    assert.deepEqual(identity, {
      issuer: idp.issuer,
      subject: 'sub-ana',
      email: 'ana.lima@student.example.edu',
      emailVerified: true,
      name: 'Ana Lima',
    });
  });

  test('the callback may arrive on another host: the token request names the redirect URI', async () => {
    const provider = settingsOf(idp);
    const { start, callback } = await signIn(client, provider, 'sub-staff');
    const proxied = new URL(`http://10.0.0.5:8080/auth/callback${callback.search}`);
    const identity = await client.finishSignIn(provider, REDIRECT, proxied, start);
    assert.equal(identity.subject, 'sub-staff');
  });

  test('an email changed at the provider, and an unverified email, are reported as they are', async () => {
    const provider = settingsOf(idp);
    idp.setPeople(
      TEST_PEOPLE.map((p) =>
        p.sub === 'sub-ana' ? { ...p, email: 'Ana.New@Example.edu', email_verified: false } : p,
      ),
    );
    try {
      const { start, callback } = await signIn(client, provider, 'sub-ana');
      const identity = await client.finishSignIn(provider, REDIRECT, callback, start);
      assert.equal(identity.subject, 'sub-ana');
      assert.equal(identity.email, 'Ana.New@Example.edu');
      assert.equal(identity.emailVerified, false);
    } finally {
      idp.setPeople(TEST_PEOPLE);
    }
  });

  test('a provider that keeps the id token to sub: email and name come from userinfo', async () => {
    const thin = await startTestIdp({ claimsInIdToken: false });
    try {
      const provider = settingsOf(thin);
      const { start, callback } = await signIn(client, provider, 'sub-unverified');
      const identity = await client.finishSignIn(provider, REDIRECT, callback, start);
      assert.deepEqual(identity, {
        issuer: thin.issuer,
        subject: 'sub-unverified',
        email: 'ben.okafor@student.example.edu',
        emailVerified: false,
        name: 'Ben Okafor',
      });
    } finally {
      await thin.close();
    }
  });

  test('an issuer with a path', async () => {
    const pathed = await startTestIdp({ issuerPath: '/realms/north' });
    try {
      assert.match(pathed.issuer, /\/realms\/north$/);
      const provider = settingsOf(pathed);
      await client.check(provider);
      const { start, callback } = await signIn(client, provider, 'sub-admin');
      assert.equal((await client.finishSignIn(provider, REDIRECT, callback, start)).issuer, pathed.issuer);
    } finally {
      await pathed.close();
    }
  });

  test('tampered state: state_mismatch, and the code is not spent', async () => {
    const provider = settingsOf(idp);
    const { start, callback } = await signIn(client, provider, 'sub-ana');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', `${start.state}x`);
    await rejectsWith(client.finishSignIn(provider, REDIRECT, tampered, start), 'state_mismatch');
    await rejectsWith(
      client.finishSignIn(provider, REDIRECT, callback, { ...start, state: 'another-sign-in' }),
      'state_mismatch',
    );
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    await rejectsWith(client.finishSignIn(provider, REDIRECT, noState, start), 'state_mismatch');
    await rejectsWith(
      client.finishSignIn(provider, REDIRECT, callback, { ...start, state: '' }),
      'state_mismatch',
    );
    // None of these reached the token endpoint: the genuine callback still signs in.
    assert.equal((await client.finishSignIn(provider, REDIRECT, callback, start)).subject, 'sub-ana');
  });

  test('replayed code: code_rejected', async () => {
    const provider = settingsOf(idp);
    const { start, callback } = await signIn(client, provider, 'sub-ana');
    await client.finishSignIn(provider, REDIRECT, callback, start);
    await rejectsWith(client.finishSignIn(provider, REDIRECT, callback, start), 'code_rejected');
  });

  test('wrong PKCE verifier: code_rejected; wrong nonce: nonce_mismatch', async () => {
    const provider = settingsOf(idp);
    const first = await signIn(client, provider, 'sub-ana');
    await rejectsWith(
      client.finishSignIn(provider, REDIRECT, first.callback, {
        ...first.start,
        codeVerifier: 'a'.repeat(43),
      }),
      'code_rejected',
    );
    const second = await signIn(client, provider, 'sub-ana');
    await rejectsWith(
      client.finishSignIn(provider, REDIRECT, second.callback, { ...second.start, nonce: 'another-nonce' }),
      'nonce_mismatch',
    );
  });

  test('a code from another issuer: issuer_mismatch, with or without its iss parameter', async () => {
    const provider = settingsOf(idp);
    const mine = await client.startSignIn(provider, REDIRECT);
    const theirs = await signIn(client, settingsOf(other), 'sub-ana');
    const injected = new URL(theirs.callback);
    injected.searchParams.set('state', mine.state);
    await rejectsWith(client.finishSignIn(provider, REDIRECT, injected, mine), 'issuer_mismatch');
    injected.searchParams.delete('iss');
    await rejectsWith(client.finishSignIn(provider, REDIRECT, injected, mine), 'issuer_mismatch');
  });

  test('a code issued to another client of the same provider: code_rejected', async () => {
    const second = {
      client_id: 'ssp-second',
      client_secret: 'second-secret-0123456789',
      redirect_uris: [REDIRECT],
    };
    const shared = await startTestIdp({ clients: [TEST_CLIENT, second] });
    try {
      const { start, callback } = await signIn(client, settingsOf(shared, second), 'sub-ana');
      await rejectsWith(client.finishSignIn(settingsOf(shared), REDIRECT, callback, start), 'code_rejected');
      await rejectsWith(
        client.finishSignIn(
          { ...settingsOf(shared, second), clientSecret: 'wrong' },
          REDIRECT,
          callback,
          start,
        ),
        'client_rejected',
      );
    } finally {
      await shared.close();
    }
  });

  test('an id token issued to another client (audience): audience_mismatch', async () => {
    // A relay in front of the provider swaps the client credentials of the token request, so
    // the provider issues a genuine id token whose audience is the other client.
    const second = {
      client_id: 'ssp-second',
      client_secret: 'second-secret-0123456789',
      redirect_uris: [REDIRECT],
    };
    const relay = await startRelay();
    const behind = await startTestIdp({ clients: [TEST_CLIENT, second], issuer: relay.url });
    try {
      assert.equal(behind.issuer, relay.url);
      relay.target = behind.listenUrl;
      const { start, callback } = await signIn(client, settingsOf(behind, second), 'sub-ana');
      relay.rewrite = (method, path, headers) => {
        if (method === 'POST' && path === '/token')
          headers.authorization = `Basic ${Buffer.from(`${second.client_id}:${second.client_secret}`).toString('base64')}`;
      };
      await rejectsWith(
        client.finishSignIn(settingsOf(behind), REDIRECT, callback, start),
        'audience_mismatch',
      );
    } finally {
      await behind.close();
      await relay.close();
    }
  });

  test('expired id token (client clock two hours ahead): token_expired', async () => {
    const provider = settingsOf(idp);
    const late = createOidcClient({
      policy: loopback,
      clock: { now: () => new Date(Date.now() + 2 * 3600_000) },
    });
    try {
      const { start, callback } = await signIn(late, provider, 'sub-ana');
      await rejectsWith(late.finishSignIn(provider, REDIRECT, callback, start), 'token_expired');
    } finally {
      await late.close();
    }
  });

  test('rotated provider keys: the client fetches the new key set and still validates', async () => {
    const rotating = await startTestIdp();
    try {
      const provider = settingsOf(rotating);
      const keyIds = async () =>
        ((await (await fetch(`${rotating.issuer}/jwks`)).json()) as { keys: { kid: string }[] }).keys.map(
          (k) => k.kid,
        );
      const first = await signIn(client, provider, 'sub-ana');
      await client.finishSignIn(provider, REDIRECT, first.callback, first.start);
      const before = await keyIds();
      const kid = await rotating.rotateKeys();
      assert.deepEqual(await keyIds(), [kid]);
      assert.ok(!before.includes(kid));
      const second = await signIn(client, provider, 'sub-staff');
      assert.equal(
        (await client.finishSignIn(provider, REDIRECT, second.callback, second.start)).subject,
        'sub-staff',
      );
    } finally {
      await rotating.close();
    }
  });

  test('person cancelled at the provider: access_denied', async () => {
    const provider = settingsOf(idp);
    const start = await client.startSignIn(provider, REDIRECT);
    const callback = await signInThroughProvider(start.url, '', { cancel: true });
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    await rejectsWith(client.finishSignIn(provider, REDIRECT, callback, start), 'access_denied');
    // A forged cancel with another state is a state mismatch, not a cancel.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged');
    await rejectsWith(client.finishSignIn(provider, REDIRECT, forged, start), 'state_mismatch');
  });

  test('a callback with neither code nor error: callback_invalid', async () => {
    const provider = settingsOf(idp);
    const start = await client.startSignIn(provider, REDIRECT);
    const bare = new URL(REDIRECT);
    bare.searchParams.set('state', start.state);
    bare.searchParams.set('iss', idp.issuer);
    await rejectsWith(client.finishSignIn(provider, REDIRECT, bare, start), 'callback_invalid');
    bare.searchParams.append('state', start.state);
    bare.searchParams.set('code', 'x');
    await rejectsWith(client.finishSignIn(provider, REDIRECT, bare, start), 'callback_invalid');
  });

  test('discovery is cached per issuer, and fetched again after its time to live', async () => {
    const relay = await startRelay();
    let now = Date.now();
    const cached = createOidcClient({ policy: loopback, clock: { now: () => new Date(now) } });
    const behind = await startTestIdp({ issuer: relay.url });
    try {
      relay.target = behind.listenUrl;
      const provider = settingsOf(behind);
      const discoveries = () =>
        relay.hits.filter((h) => h.endsWith('/.well-known/openid-configuration')).length;
      await cached.startSignIn(provider, REDIRECT);
      await cached.startSignIn(provider, REDIRECT);
      assert.equal(discoveries(), 1);
      now += 5 * 60_000 + 1;
      await cached.startSignIn(provider, REDIRECT);
      assert.equal(discoveries(), 2);
      await cached.check(provider);
      assert.equal(discoveries(), 3, 'check() always fetches afresh');
    } finally {
      await cached.close();
      await behind.close();
      await relay.close();
    }
  });
});

describe('discovery failures and the outbound URL policy', () => {
  let idp: DevIdp;
  let client: OidcClient;
  before(async () => {
    idp = await startTestIdp();
    client = createOidcClient({ policy: loopback });
  });
  after(async () => {
    await client.close();
    await idp.close();
  });

  test('a discovery document naming another issuer: issuer_mismatch', async () => {
    const relay = await startRelay();
    relay.target = idp.issuer;
    try {
      const provider = { ...settingsOf(idp), issuer: relay.url };
      const error = await rejectsWith(client.check(provider), 'issuer_mismatch');
      assert.match(error.message, /another issuer/);
      await rejectsWith(client.startSignIn(provider, REDIRECT), 'issuer_mismatch');
    } finally {
      await relay.close();
    }
  });

  test('loopback and private issuers are refused when loopback is not allowed', async () => {
    const strict = createOidcClient({ policy: { allowLoopback: false } });
    try {
      for (const issuer of [
        idp.issuer,
        idp.issuer.replace('http:', 'https:'),
        'https://10.0.0.1',
        'https://169.254.169.254/latest',
        'https://[::ffff:127.0.0.1]',
        'https://0x7f.1',
        'https://2130706433',
        'https://localhost',
        'https://metadata.google.internal',
        'http://example.edu',
        'ftp://example.edu',
        'not a url',
      ])
        await rejectsWith(strict.check({ ...settingsOf(idp), issuer }), 'url_not_allowed');
      await rejectsWith(
        strict.startSignIn({ ...settingsOf(idp), issuer: 'https://10.0.0.1' }, REDIRECT),
        'url_not_allowed',
      );
    } finally {
      await strict.close();
    }
  });

  test('a name that resolves to a private address is refused at connect time', async () => {
    const lookup = ((_host: string, _options: unknown, callback: (e: null, a: dns.LookupAddress[]) => void) =>
      callback(null, [{ address: '10.1.2.3', family: 4 }])) as unknown as typeof dns.lookup;
    const strict = createOidcClient({ policy: { allowLoopback: false }, lookup, timeoutMs: 2000 });
    try {
      await rejectsWith(
        strict.check({ ...settingsOf(idp), issuer: 'https://idp.example.edu' }),
        'url_not_allowed',
      );
    } finally {
      await strict.close();
    }
  });

  test('an endpoint discovery names at a private or metadata address: url_not_allowed', async () => {
    const real = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    for (const [field, value] of [
      ['token_endpoint', 'http://169.254.169.254/latest/meta-data'],
      ['jwks_uri', 'https://10.0.0.7/jwks'],
      ['authorization_endpoint', 'https://[fd00:ec2::254]/auth'],
      ['userinfo_endpoint', 'http://example.edu/me'],
    ]) {
      const server = await startDocumentServer((self) => ({
        status: 200,
        body: JSON.stringify({ ...real, issuer: self, [field]: value }),
      }));
      try {
        const error = await rejectsWith(
          client.check({ ...settingsOf(idp), issuer: server.url }),
          'url_not_allowed',
        );
        assert.ok(error.message.includes(value), error.message);
      } finally {
        await server.close();
      }
    }
  });

  test('an answer that is not OpenID Connect metadata: discovery_failed', async () => {
    for (const answer of [
      { status: 404, body: '{"error":"not_found"}' },
      { status: 200, body: 'not json' },
      { status: 200, body: '[]' },
    ]) {
      const server = await startDocumentServer(() => answer);
      try {
        await rejectsWith(client.check({ ...settingsOf(idp), issuer: server.url }), 'discovery_failed');
      } finally {
        await server.close();
      }
    }
    const noCode = await startDocumentServer((self) => ({
      status: 200,
      body: JSON.stringify({
        issuer: self,
        authorization_endpoint: `${self}/auth`,
        token_endpoint: `${self}/token`,
        jwks_uri: `${self}/jwks`,
        response_types_supported: ['id_token'],
      }),
    }));
    try {
      await rejectsWith(client.check({ ...settingsOf(idp), issuer: noCode.url }), 'discovery_failed');
    } finally {
      await noCode.close();
    }
  });

  test('provider down (connection refused): provider_unreachable', async () => {
    const gone = await startDocumentServer(() => ({ status: 200, body: '{}' }));
    await gone.close();
    const provider = { ...settingsOf(idp), issuer: gone.url };
    await rejectsWith(client.check(provider), 'provider_unreachable');
    await rejectsWith(client.startSignIn(provider, REDIRECT), 'provider_unreachable');
  });

  test('provider down between start and callback: provider_unreachable', async () => {
    const brief = await startTestIdp();
    const provider = settingsOf(brief);
    const { start, callback } = await signIn(client, provider, 'sub-ana');
    await brief.close();
    await rejectsWith(client.finishSignIn(provider, REDIRECT, callback, start), 'provider_unreachable');
  });
});
