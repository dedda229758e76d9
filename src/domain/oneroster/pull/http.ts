// One HTTP exchange with a OneRoster provider, inside the outbound URL guard: the URL passes
// checkUrlSyntax (https; no literal loopback, private or metadata address) and the connection's
// DNS answer passes guardedLookup, on every request (token and data), so a name that later
// resolves to a refused address is never connected to. A time limit per request (connect to
// the last byte: a trickling answer is cut), cut shorter by the pull's deadline; a size limit
// applied while the body streams in (the page's budget, or what is left of the pull's); and an
// error answer's body read only up to ERROR_BODY_READ bytes (its start is kept for the reason),
// as webhook attempts do, so a provider answering 500 with gigabytes costs nothing. Redirects
// are not followed: a OneRoster API answers where it is configured. Never throws: failures are
// outcomes with a reason a person can read, a stable code, and whether sending again may help.

import type dns from 'node:dns';
import { Agent, request } from 'undici';
import { readBounded } from '../../../lib/bounded-body.ts';
import { checkUrlSyntax, guardedLookup, type OutboundPolicy } from '../../../lib/outbound-url.ts';

export interface HttpLimits {
  /** One request, from connect to the last byte of the body. */
  timeoutMs: number;
  /** One response body (a page's budget). */
  maxBytes: number;
}

/** Most of an error answer's body read at all; the rest is not waited for. */
export const ERROR_BODY_READ = 64 * 1024;
/** How much of it is quoted in the reason. */
const ERROR_BODY_QUOTED = 200;

/**
 * Why an exchange failed, stable for programs (the pull's `error_code`): docs/oneroster.md.
 * `page_too_large` and `pull_too_large` are a budget passed, `pull_deadline` the pull's deadline.
 */
export type ExchangeCode =
  | 'refused_url'
  | 'provider_error'
  | 'provider_timeout'
  | 'provider_unreachable'
  | 'page_too_large'
  | 'pull_too_large'
  | 'pull_deadline';

/** What one exchange may take: bytes of body and the pull's deadline (performance.now() time). */
export interface ExchangeBudget {
  maxBytes: number;
  /** The limit that maxBytes is, for the reason and the code. */
  limit: 'page' | 'pull';
  deadline: number;
}

export type Exchange =
  | { kind: 'ok'; status: number; body: Buffer; headers: Record<string, string | string[] | undefined> }
  | {
      kind: 'failed';
      status: number | null;
      code: ExchangeCode;
      error: string;
      /** 429 and 5xx, a cut or timed-out connection: sending again may help. */
      retryable: boolean;
      /** 429's Retry-After, in ms, when the provider said. */
      retryAfterMs?: number;
    };

export interface HttpDeps {
  policy: OutboundPolicy;
  limits: HttpLimits;
  lookup?: typeof dns.lookup;
  now?: () => number;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Retry-After as seconds or an HTTP date, in ms from now. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The start of an error answer's body, reading at most ERROR_BODY_READ bytes of it. */
async function errorBodyStart(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const kept: Buffer[] = [];
  let read = 0;
  try {
    for await (const chunk of body) {
      if (read < ERROR_BODY_QUOTED * 4) kept.push(chunk.subarray(0, ERROR_BODY_QUOTED * 4 - read));
      read += chunk.length;
      if (read >= ERROR_BODY_READ) break;
    }
  } catch {
    // A body cut short still tells what it began with.
  } finally {
    body.destroy();
  }
  return new TextDecoder('utf-8', { fatal: false })
    .decode(Buffer.concat(kept))
    .replace(/\p{Cc}+/gu, ' ')
    .slice(0, ERROR_BODY_QUOTED)
    .trim();
}

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

type ExchangeInit = { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
type Failed = Exchange & { kind: 'failed' };
type Headers = Record<string, string | string[] | undefined>;

function failed(
  status: number | null,
  code: ExchangeCode,
  error: string,
  retryable: boolean,
  retryAfter?: number,
): Failed {
  return {
    kind: 'failed',
    status,
    code,
    error,
    retryable,
    ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
  };
}

/** A body over its budget: the page's limit, or what is left of the pull's. */
function tooLarge(budget: ExchangeBudget, status: number, what: string): Failed {
  return budget.limit === 'page'
    ? failed(
        status,
        'page_too_large',
        `the answer is too large: ${what}, a page may have ${mb(budget.maxBytes)}`,
        false,
      )
    : failed(
        status,
        'pull_too_large',
        `the pull is too large: ${what}, and the pull may read only ${mb(budget.maxBytes)} more`,
        false,
      );
}

/** An error answer (not 2xx): its status and the start of its body; 429 and 5xx may be sent again. */
async function errorAnswer(
  status: number,
  response: { headers: Headers; body: unknown },
  now: () => number,
): Promise<Failed> {
  const text = await errorBodyStart(response.body as never);
  const retryable = status === 429 || status >= 500;
  const after = status === 429 ? retryAfterMs(header(response.headers['retry-after']), now()) : undefined;
  return failed(status, 'provider_error', `HTTP ${status}${text ? `: ${text}` : ''}`, retryable, after);
}

/** A 2xx answer's body read within the budget: refused as soon as it announces or sends more. */
async function okAnswer(
  status: number,
  response: { headers: Headers; body: AsyncIterable<unknown> & { destroy(): void } },
  budget: ExchangeBudget,
): Promise<Exchange> {
  const declared = Number(header(response.headers['content-length']));
  if (Number.isFinite(declared) && declared > budget.maxBytes) {
    response.body.destroy();
    return tooLarge(budget, status, `${mb(declared)} announced`);
  }
  const body = await readBounded(response.body, budget.maxBytes);
  if (!body) return tooLarge(budget, status, `more than ${mb(budget.maxBytes)} sent`);
  return { kind: 'ok', status, body, headers: response.headers };
}

/**
 * What a request that threw comes to: the pull's deadline or the request's time limit passed,
 * an address the guard refused, a host that does not resolve or refuses, or another failure.
 */
function thrownAnswer(
  caught: unknown,
  status: number | null,
  timing: { aborted: boolean; byDeadline: boolean; timeoutMs: number },
): Failed {
  const code = (caught as { code?: string }).code;
  if (timing.aborted || /TIMEOUT/.test(code ?? '')) {
    if (timing.byDeadline && timing.aborted)
      return failed(
        status,
        'pull_deadline',
        'the pull ran out of time (deadline) waiting for an answer',
        false,
      );
    return failed(
      status,
      'provider_timeout',
      `no complete answer within ${timing.timeoutMs / 1000} s (time limit)`,
      true,
    );
  }
  if (code === 'E_BLOCKED_ADDRESS') return failed(null, 'refused_url', (caught as Error).message, false);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return failed(null, 'provider_unreachable', 'the host name does not resolve', true);
  if (code === 'ECONNREFUSED')
    return failed(null, 'provider_unreachable', 'the server refused the connection', true);
  const message = String((caught as Error)?.message ?? caught).slice(0, 300);
  return failed(status, 'provider_error', `the request failed: ${code ? `${code}: ` : ''}${message}`, true);
}

/** The HTTP side of one pull: one agent (its connections reused page after page) and its exchanges. */
export function createHttp(deps: HttpDeps) {
  const { policy, limits } = deps;
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy, deps.lookup) as never, timeout: limits.timeoutMs },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
  });
  const now = () => deps.now?.() ?? Date.now();

  async function exchange(
    url: string,
    init: ExchangeInit,
    budget: ExchangeBudget = { maxBytes: limits.maxBytes, limit: 'page', deadline: Number.POSITIVE_INFINITY },
  ): Promise<Exchange> {
    const syntax = checkUrlSyntax(url, policy);
    if (!syntax.ok) return failed(null, 'refused_url', `refused: ${syntax.reason}`, false);
    const left = budget.deadline - performance.now();
    if (left <= 0) return failed(null, 'pull_deadline', 'the pull ran out of time (deadline)', false);
    // The request's own limit, or what is left of the pull's deadline when that is sooner.
    const byDeadline = left < limits.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(limits.timeoutMs, left));
    let status: number | null = null;
    try {
      const response = await request(syntax.url, {
        method: init.method,
        dispatcher: agent,
        signal: controller.signal,
        headers: init.headers,
        body: init.body,
      });
      status = response.statusCode;
      if (status < 200 || status >= 300) return await errorAnswer(status, response, now);
      return await okAnswer(status, response, budget);
    } catch (caught) {
      return thrownAnswer(caught, status, {
        aborted: controller.signal.aborted,
        byDeadline,
        timeoutMs: limits.timeoutMs,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  return { exchange, close: () => agent.close().catch(() => {}) };
}

export type Http = ReturnType<typeof createHttp>;
