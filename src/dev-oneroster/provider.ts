// A OneRoster 1.2 REST provider over real HTTP, serving data held in memory: the OAuth 2.0
// client-credentials token endpoint, and the rostering collections with `limit`/`offset`
// paging, X-Total-Count, and `filter=dateLastModified>'…'`. Faults on request (tokens that
// expire, 429 with Retry-After, 5xx, a provider down) let tests and demos see what a pull does
// with them. Development and tests only: `ssp dev-oneroster` serves it on loopback.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { COLLECTIONS, type Json, type ProviderCollection, type ProviderData } from './data.ts';

export const ROSTERING_PATH = '/ims/oneroster/rostering/v1p2';

export interface ProviderOptions {
  data: ProviderData;
  clientId?: string;
  clientSecret?: string;
  /** Largest page the provider serves, whatever `limit` asks (providers cap it). */
  maxLimit?: number;
  host?: string;
  port?: number;
}

export interface ProviderRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
}

export interface OneRosterProvider {
  /** The rostering base URL (…/ims/oneroster/rostering/v1p2). */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  data: ProviderData;
  requests: ProviderRequest[];
  /** Every token issued so far stops working (as when tokens expire). */
  expireTokens(): void;
  /** The next `count` data requests are answered 429 with this Retry-After (seconds). */
  rateLimit(count: number, retryAfterSeconds: number): void;
  /** The next `count` data requests are answered with `status` (a 5xx). */
  fail(count: number, status?: number): void;
  /** Every data request of this collection fails with `status` until cleared (null). */
  down(collection: ProviderCollection | 'all' | null, status?: number): void;
  /** Leave out the X-Total-Count header (some providers do). */
  withoutTotal(on: boolean): void;
  close(): Promise<void>;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** OneRoster's filter, the part a pull uses: dateLastModified>'…' (or >=). */
function filterOf(filter: string | undefined): ((o: Json) => boolean) | undefined {
  if (!filter) return undefined;
  const m = /^dateLastModified(>=?)'([^']+)'$/.exec(filter.trim());
  if (!m) return () => false;
  const at = Date.parse(m[2]);
  return (o) => {
    const t = Date.parse(String(o.dateLastModified ?? ''));
    return m[1] === '>=' ? t >= at : t > at;
  };
}

export async function startOneRosterProvider(options: ProviderOptions): Promise<OneRosterProvider> {
  const clientId = options.clientId ?? 'demo-client';
  const clientSecret = options.clientSecret ?? 'demo-secret';
  const maxLimit = options.maxLimit ?? 1000;
  const tokens = new Set<string>();
  const requests: ProviderRequest[] = [];
  let limited = { count: 0, retryAfter: 1 };
  let failing = { count: 0, status: 503 };
  let downCollection: { name: string; status: number } | null = null;
  let sendTotal = true;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://provider');
    const query = Object.fromEntries(url.searchParams);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      requests.push({ method: req.method ?? 'GET', path: url.pathname, query, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && url.pathname === '/oauth/token')
        return issueToken(req, Buffer.concat(chunks), { clientId, clientSecret, tokens }, send);
      const name = url.pathname.startsWith(`${ROSTERING_PATH}/`)
        ? url.pathname.slice(ROSTERING_PATH.length + 1)
        : '';
      if (req.method !== 'GET' || !(COLLECTIONS as readonly string[]).includes(name))
        return send(404, { imsx_codeMajor: 'failure', imsx_description: 'unknown endpoint' });
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!tokens.has(bearer))
        return send(401, { imsx_codeMajor: 'failure', imsx_description: 'invalid token' });
      if (limited.count > 0) {
        limited.count--;
        return send(
          429,
          { imsx_description: 'too many requests' },
          { 'retry-after': String(limited.retryAfter) },
        );
      }
      if (failing.count > 0) {
        failing.count--;
        return send(failing.status, { imsx_description: 'server error' });
      }
      if (downCollection && (downCollection.name === 'all' || downCollection.name === name))
        return send(downCollection.status, { imsx_description: 'unavailable' });
      const keep = filterOf(query.filter);
      const all = options.data[name as ProviderCollection];
      const records = keep ? all.filter(keep) : all;
      const limit = Math.min(maxLimit, Math.max(1, Number(query.limit ?? 100) || 100));
      const offset = Math.max(0, Number(query.offset ?? 0) || 0);
      send(
        200,
        { [name]: records.slice(offset, offset + limit) },
        sendTotal ? { 'x-total-count': String(records.length) } : {},
      );
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const address = server.address() as AddressInfo;
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    baseUrl: `${origin}${ROSTERING_PATH}`,
    tokenUrl: `${origin}/oauth/token`,
    clientId,
    clientSecret,
    data: options.data,
    requests,
    expireTokens: () => tokens.clear(),
    rateLimit: (count, retryAfter) => {
      limited = { count, retryAfter };
    },
    fail: (count, status = 503) => {
      failing = { count, status };
    },
    down: (collection, status = 503) => {
      downCollection = collection ? { name: collection, status } : null;
    },
    withoutTotal: (on) => {
      sendTotal = !on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** POST /oauth/token: the client credentials grant, with the client's id and secret in Basic. */
function issueToken(
  req: http.IncomingMessage,
  body: Buffer,
  client: { clientId: string; clientSecret: string; tokens: Set<string> },
  send: (status: number, body: unknown) => void,
): void {
  const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
  const [id, secret] = Buffer.from(encoded ?? '', 'base64')
    .toString()
    .split(':')
    .map((part) => decodeURIComponent(part ?? ''));
  const form = new URLSearchParams(body.toString());
  if (scheme !== 'Basic' || !equal(id ?? '', client.clientId) || !equal(secret ?? '', client.clientSecret)) {
    send(401, { error: 'invalid_client' });
    return;
  }
  if (form.get('grant_type') !== 'client_credentials') {
    send(400, { error: 'unsupported_grant_type' });
    return;
  }
  const token = randomBytes(16).toString('hex');
  client.tokens.add(token);
  send(200, {
    access_token: token,
    token_type: 'bearer',
    expires_in: 3600,
    scope: form.get('scope'),
  });
}
