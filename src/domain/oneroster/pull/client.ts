// A OneRoster 1.2 REST client (rostering service): an OAuth 2.0 client-credentials token, and
// each collection read in pages with `limit` and `offset` until the provider's X-Total-Count
// (or a short page, when it sends none). Every request goes through http.ts (the URL guard,
// time and size limits). 429 waits the provider's Retry-After (at most `maxRetryAfterMs`), 5xx
// and cut connections back off exponentially with jitter, up to `attempts` tries per request;
// an expired or revoked token (401) is renewed once. A failure ends the pull (PullFailure):
// nothing read is applied unless everything was read.

import type dns from 'node:dns';
import type { OutboundPolicy } from '../../../lib/outbound-url.ts';
import { createHttp, type Exchange, type HttpLimits } from './http.ts';

export interface PullLimits extends HttpLimits {
  /** Tries per request on 429, 5xx and network errors. */
  attempts: number;
  /** A longer Retry-After ends the pull rather than holding it. */
  maxRetryAfterMs: number;
  /** Records asked for per page (`limit`). */
  pageSize: number;
  /** Records read per collection at most (a provider paging forever is cut off). */
  maxRecords: number;
}

export const DEFAULT_PULL_LIMITS: PullLimits = {
  timeoutMs: 60_000,
  maxBytes: 32 * 1024 * 1024,
  attempts: 5,
  maxRetryAfterMs: 120_000,
  pageSize: 1000,
  maxRecords: 2_000_000,
};

/** The OneRoster 1.2 read scope of the rostering core (what a roster pull needs). */
export const ROSTER_SCOPE = 'https://purl.imsglobal.org/spec/or/v1p2/scope/roster-core.readonly';

export class PullFailure extends Error {
  readonly status: number | null;
  constructor(message: string, status: number | null = null) {
    super(message);
    this.status = status;
  }
}

export interface ClientConfig {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface ClientDeps {
  policy: OutboundPolicy;
  limits: PullLimits;
  lookup?: typeof dns.lookup;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told of each wait (429, backoff), for the pull's notes. */
  onRetry?: (what: string) => void;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createOneRosterClient(config: ClientConfig, deps: ClientDeps) {
  const { limits } = deps;
  const http = createHttp({ policy: deps.policy, limits, lookup: deps.lookup });
  const sleep = deps.sleep ?? wait;
  const random = deps.random ?? Math.random;
  let token: string | undefined;

  /** One request with retries on 429, 5xx and network errors. */
  async function withRetries(what: string, send: () => Promise<Exchange>): Promise<Exchange> {
    for (let attempt = 1; ; attempt++) {
      const answer = await send();
      if (answer.kind === 'ok' || !answer.retryable || attempt >= limits.attempts) return answer;
      let delay: number;
      if (answer.status === 429 && answer.retryAfterMs !== undefined) {
        if (answer.retryAfterMs > limits.maxRetryAfterMs) {
          return {
            ...answer,
            error: `${answer.error} (the provider asks to wait ${Math.ceil(answer.retryAfterMs / 1000)} s, more than the limit)`,
            retryable: false,
          };
        }
        delay = answer.retryAfterMs;
      } else {
        delay = Math.floor(random() * Math.min(30_000, 500 * 2 ** (attempt - 1)));
      }
      deps.onRetry?.(`${what}: ${answer.error}; tried again after ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay);
    }
  }

  async function fetchToken(): Promise<string> {
    const basic = Buffer.from(
      `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`,
    ).toString('base64');
    const answer = await withRetries('token', () =>
      http.exchange(config.tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: ROSTER_SCOPE }).toString(),
      }),
    );
    if (answer.kind === 'failed') {
      const refused = answer.status === 400 || answer.status === 401;
      throw new PullFailure(
        `token request failed: ${answer.error}${refused ? ' (check the client id and secret)' : ''}`,
        answer.status,
      );
    }
    let parsed: { access_token?: unknown };
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw new PullFailure('token request failed: the answer is not JSON', answer.status);
    }
    if (typeof parsed.access_token !== 'string' || !parsed.access_token)
      throw new PullFailure('token request failed: the answer has no access_token', answer.status);
    return parsed.access_token;
  }

  /** A GET with the token; a 401 renews the token once. */
  async function get(url: string, what: string): Promise<Exchange & { kind: 'ok' }> {
    token ??= await fetchToken();
    const send = () =>
      http.exchange(url, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
    let answer = await withRetries(what, send);
    if (answer.kind === 'failed' && answer.status === 401) {
      token = await fetchToken();
      deps.onRetry?.(`${what}: the token was refused (expired?): renewed once`);
      answer = await withRetries(what, send);
    }
    if (answer.kind === 'failed') throw new PullFailure(`${what}: ${answer.error}`, answer.status);
    return answer;
  }

  /**
   * The records of one collection (orgs, academicSessions, courses, classes, users,
   * enrollments), page by page; `filter` in OneRoster's syntax (dateLastModified>'…').
   */
  async function* collection(name: string, filter?: string): AsyncGenerator<Record<string, unknown>[]> {
    const base = config.baseUrl.replace(/\/+$/, '');
    let offset = 0;
    for (;;) {
      const params = new URLSearchParams({ limit: String(limits.pageSize), offset: String(offset) });
      if (filter) params.set('filter', filter);
      const answer = await get(`${base}/${name}?${params}`, `${name} (offset ${offset})`);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(answer.body.toString('utf8'));
      } catch {
        throw new PullFailure(`${name} (offset ${offset}): the answer is not JSON`, answer.status);
      }
      const records = body?.[name];
      if (!Array.isArray(records))
        throw new PullFailure(`${name} (offset ${offset}): the answer has no "${name}" array`, answer.status);
      if (records.length) yield records as Record<string, unknown>[];
      offset += records.length;
      const totalHeader = answer.headers['x-total-count'];
      const total = Number(Array.isArray(totalHeader) ? totalHeader[0] : totalHeader);
      if (records.length === 0) break;
      if (
        Number.isFinite(total) && totalHeader !== undefined
          ? offset >= total
          : records.length < limits.pageSize
      )
        break;
      if (offset >= limits.maxRecords)
        throw new PullFailure(`${name}: more than ${limits.maxRecords} records (the limit)`, answer.status);
    }
  }

  return { collection, close: () => http.close() };
}

export type OneRosterClient = ReturnType<typeof createOneRosterClient>;
