// A OneRoster 1.2 REST client (rostering service): an OAuth 2.0 client-credentials token, and
// each collection read in pages with `limit` and `offset` until the provider's X-Total-Count
// (or a short page, when it sends none). Every request goes through http.ts (the URL guard,
// time and size limits); the pull as a whole has a byte budget (what its pages may add up to)
// and a deadline (retries and waits included), and each page is parsed off the event loop
// (page-parser.ts). 429 waits the provider's Retry-After (at most `maxRetryAfterMs`), 5xx
// and cut connections back off exponentially with jitter, up to `attempts` tries per request;
// an expired or revoked token (401) is renewed once. A failure ends the pull (PullFailure):
// nothing read is applied unless everything was read.

import type dns from 'node:dns';
import type { OutboundPolicy } from '../../../lib/outbound-url.ts';
import type { PulledCollection } from './flatten.ts';
import {
  createHttp,
  type Exchange,
  type ExchangeBudget,
  type ExchangeCode,
  type Http,
  type HttpLimits,
} from './http.ts';
import type { ParsedPage, ParsePage } from './page-parser.ts';

export interface PullLimits extends HttpLimits {
  /** Tries per request on 429, 5xx and network errors. */
  attempts: number;
  /** A longer Retry-After ends the pull rather than holding it. */
  maxRetryAfterMs: number;
  /** Records asked for per page (`limit`). */
  pageSize: number;
  /** Records read per collection at most (a provider paging forever is cut off). */
  maxRecords: number;
  /** Bytes of answers one pull may read in all (its pages add up to this at most). */
  pullMaxBytes: number;
  /** One pull's reading of the provider, retries and waits included. */
  deadlineMs: number;
  /** The heap a page's parse may use (the parse worker's limit). */
  parseMemoryMb: number;
}

export const DEFAULT_PULL_LIMITS: PullLimits = {
  timeoutMs: 60_000,
  maxBytes: 32 * 1024 * 1024,
  attempts: 5,
  maxRetryAfterMs: 120_000,
  pageSize: 1000,
  maxRecords: 2_000_000,
  pullMaxBytes: 256 * 1024 * 1024,
  deadlineMs: 30 * 60_000,
  parseMemoryMb: 256,
};

/** The limits with the operator's settings (config.ts: ONEROSTER_PAGE_MAX_MB …). */
export function pullLimitsOf(settings: {
  pageMaxBytes: number;
  pullMaxBytes: number;
  deadlineMs: number;
  parseMemoryMb: number;
}): PullLimits {
  const { pageMaxBytes, ...rest } = settings;
  return { ...DEFAULT_PULL_LIMITS, ...rest, maxBytes: pageMaxBytes };
}

/**
 * Why a pull failed, stable for programs (the run's and the source's `error_code`), besides
 * the reason in words: http.ts's codes, and the client's and the pull's own.
 */
export type PullErrorCode =
  | ExchangeCode
  | 'token_failed'
  | 'invalid_answer'
  | 'too_many_records'
  | 'parse_memory'
  | 'secret_unreadable'
  | 'apply_failed';

/** The OneRoster 1.2 read scope of the rostering core (what a roster pull needs). */
export const ROSTER_SCOPE = 'https://purl.imsglobal.org/spec/or/v1p2/scope/roster-core.readonly';

export class PullFailure extends Error {
  readonly status: number | null;
  readonly code: PullErrorCode;
  constructor(message: string, status: number | null = null, code: PullErrorCode = 'provider_error') {
    super(message);
    this.status = status;
    this.code = code;
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
  /** Parses a page's body into flattened records, off the event loop (page-parser.ts). */
  parsePage: ParsePage;
}

/** A token answer is a few hundred bytes; more is not a token. */
const TOKEN_MAX_BYTES = 64 * 1024;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The pull's byte budget and deadline, from the client's creation (one client, one pull). */
function pullAllowance(limits: PullLimits) {
  const deadline = performance.now() + limits.deadlineMs;
  let bytesRead = 0;
  return {
    deadline,
    /** What the next answer may take: the page's budget, or what is left of the pull's if less. */
    next(): ExchangeBudget {
      const left = limits.pullMaxBytes - bytesRead;
      return left < limits.maxBytes
        ? { maxBytes: Math.max(0, left), limit: 'pull', deadline }
        : { maxBytes: limits.maxBytes, limit: 'page', deadline };
    },
    spent(bytes: number): void {
      bytesRead += bytes;
    },
    outOfTime: (status: number | null) =>
      new PullFailure(
        `the pull ran out of time: reading the provider may take ${Math.round(limits.deadlineMs / 60_000)} min at most (deadline)`,
        status,
        'pull_deadline',
      ),
  };
}

/** How a client sends again: its limits, the pull's allowance, and the waits (a test's own). */
interface Retrying {
  limits: PullLimits;
  allowance: ReturnType<typeof pullAllowance>;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  onRetry?: (what: string) => void;
}

/**
 * The wait before sending a failed request again: 429's Retry-After (an answer that no longer
 * retries when it asks for more than the limit), else exponential backoff with jitter.
 */
function waitBefore(r: Retrying, answer: Exchange & { kind: 'failed' }, attempt: number): number | Exchange {
  if (answer.status === 429 && answer.retryAfterMs !== undefined) {
    if (answer.retryAfterMs > r.limits.maxRetryAfterMs) {
      return {
        ...answer,
        error: `${answer.error} (the provider asks to wait ${Math.ceil(answer.retryAfterMs / 1000)} s, more than the limit)`,
        retryable: false,
      };
    }
    return answer.retryAfterMs;
  }
  return Math.floor(r.random() * Math.min(30_000, 500 * 2 ** (attempt - 1)));
}

/** One request with retries on 429, 5xx and network errors, within the pull's deadline. */
async function withRetries(r: Retrying, what: string, send: () => Promise<Exchange>): Promise<Exchange> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.kind === 'failed' && answer.code === 'pull_deadline')
      throw r.allowance.outOfTime(answer.status);
    if (answer.kind === 'ok' || !answer.retryable || attempt >= r.limits.attempts) return answer;
    const delay = waitBefore(r, answer, attempt);
    if (typeof delay !== 'number') return delay;
    if (performance.now() + delay >= r.allowance.deadline) throw r.allowance.outOfTime(answer.status);
    r.onRetry?.(`${what}: ${answer.error}; tried again after ${(delay / 1000).toFixed(1)} s`);
    await r.sleep(delay);
  }
}

/** The access token of a token endpoint's answer, or the failure naming what is wrong with it. */
function tokenOf(answer: Exchange): string {
  if (answer.kind === 'failed') {
    const refused = answer.status === 400 || answer.status === 401;
    throw new PullFailure(
      `token request failed: ${answer.error}${refused ? ' (check the client id and secret)' : ''}`,
      answer.status,
      answer.code === 'provider_error' || answer.code === 'page_too_large' ? 'token_failed' : answer.code,
    );
  }
  let parsed: { access_token?: unknown };
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new PullFailure('token request failed: the answer is not JSON', answer.status, 'token_failed');
  }
  if (typeof parsed.access_token !== 'string' || !parsed.access_token)
    throw new PullFailure(
      'token request failed: the answer has no access_token',
      answer.status,
      'token_failed',
    );
  return parsed.access_token;
}

/** An OAuth 2.0 client-credentials token for the roster scope. */
async function fetchToken(http: Http, config: ClientConfig, r: Retrying): Promise<string> {
  const basic = Buffer.from(
    `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`,
  ).toString('base64');
  const answer = await withRetries(r, 'token', () =>
    http.exchange(
      config.tokenUrl,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: ROSTER_SCOPE }).toString(),
      },
      // A token is a few hundred bytes: its answer gets a small budget, parsed here.
      { maxBytes: TOKEN_MAX_BYTES, limit: 'page', deadline: r.allowance.deadline },
    ),
  );
  return tokenOf(answer);
}

/** Whether a collection's last page was read: X-Total-Count reached, or a short page without it. */
function lastPage(
  answer: Exchange & { kind: 'ok' },
  page: ParsedPage,
  offset: number,
  pageSize: number,
): boolean {
  if (page.count === 0) return true;
  const totalHeader = answer.headers['x-total-count'];
  const total = Number(Array.isArray(totalHeader) ? totalHeader[0] : totalHeader);
  return Number.isFinite(total) && totalHeader !== undefined ? offset >= total : page.count < pageSize;
}

/**
 * The records of one collection (orgs, academicSessions, courses, classes, users,
 * enrollments), page by page, flattened (parsed off the event loop); `filter` in OneRoster's
 * syntax (dateLastModified>'…').
 */
async function* readCollection(
  client: { get: (url: string, what: string) => Promise<Exchange & { kind: 'ok' }>; config: ClientConfig },
  deps: Pick<ClientDeps, 'limits' | 'parsePage'>,
  name: PulledCollection,
  filter?: string,
): AsyncGenerator<ParsedPage> {
  const { limits } = deps;
  const base = client.config.baseUrl.replace(/\/+$/, '');
  let offset = 0;
  for (;;) {
    const params = new URLSearchParams({ limit: String(limits.pageSize), offset: String(offset) });
    if (filter) params.set('filter', filter);
    const what = `${name} (offset ${offset})`;
    const answer = await client.get(`${base}/${name}?${params}`, what);
    const page = await deps.parsePage({ collection: name, body: answer.body, firstPosition: offset + 1 });
    if (page.kind === 'problem') throw new PullFailure(`${what}: ${page.message}`, answer.status, page.code);
    if (page.count) yield page;
    offset += page.count;
    if (lastPage(answer, page, offset, limits.pageSize)) break;
    if (offset >= limits.maxRecords)
      throw new PullFailure(
        `${name}: more than ${limits.maxRecords} records (the limit)`,
        answer.status,
        'too_many_records',
      );
  }
}

/** A client for one pull: its connections, token, byte budget and deadline. */
export function createOneRosterClient(config: ClientConfig, deps: ClientDeps) {
  const { limits } = deps;
  const http = createHttp({ policy: deps.policy, limits, lookup: deps.lookup });
  const allowance = pullAllowance(limits);
  const r: Retrying = {
    limits,
    allowance,
    sleep: deps.sleep ?? wait,
    random: deps.random ?? Math.random,
    onRetry: deps.onRetry,
  };
  let token: string | undefined;

  /** A GET with the token; a 401 renews the token once. */
  async function get(url: string, what: string): Promise<Exchange & { kind: 'ok' }> {
    token ??= await fetchToken(http, config, r);
    const send = () =>
      http.exchange(
        url,
        { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
        allowance.next(),
      );
    let answer = await withRetries(r, what, send);
    if (answer.kind === 'failed' && answer.status === 401) {
      token = await fetchToken(http, config, r);
      deps.onRetry?.(`${what}: the token was refused (expired?): renewed once`);
      answer = await withRetries(r, what, send);
    }
    if (answer.kind === 'failed')
      throw new PullFailure(`${what}: ${answer.error}`, answer.status, answer.code);
    allowance.spent(answer.body.length);
    return answer;
  }

  return {
    collection: (name: PulledCollection, filter?: string) =>
      readCollection({ get, config }, deps, name, filter),
    close: () => http.close(),
  };
}

export type OneRosterClient = ReturnType<typeof createOneRosterClient>;
