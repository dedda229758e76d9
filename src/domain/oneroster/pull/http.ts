// One HTTP exchange with a OneRoster provider, inside the outbound URL guard: the URL passes
// checkUrlSyntax (https; no literal loopback, private or metadata address) and the connection's
// DNS answer passes guardedLookup, on every request (token and data), so a name that later
// resolves to a refused address is never connected to. A time limit per request, and a size
// limit applied while the body streams in. Redirects are not followed: a OneRoster API answers
// where it is configured. Never throws: failures are outcomes with a reason a person can read,
// and whether sending again may help.

import type dns from 'node:dns';
import { Agent, request } from 'undici';
import { checkUrlSyntax, guardedLookup, type OutboundPolicy } from '../../../lib/outbound-url.ts';

export interface HttpLimits {
  /** One request, from connect to the last byte of the body. */
  timeoutMs: number;
  /** One response body. */
  maxBytes: number;
}

export type Exchange =
  | { kind: 'ok'; status: number; body: Buffer; headers: Record<string, string | string[] | undefined> }
  | {
      kind: 'failed';
      status: number | null;
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

export function createHttp(deps: HttpDeps) {
  const { policy, limits } = deps;
  // One agent for the pull: its connections are reused page after page.
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy, deps.lookup) as never, timeout: limits.timeoutMs },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
  });

  async function exchange(
    url: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  ): Promise<Exchange> {
    const failed = (
      status: number | null,
      error: string,
      retryable: boolean,
      retryAfter?: number,
    ): Exchange => ({
      kind: 'failed',
      status,
      error,
      retryable,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    });
    const syntax = checkUrlSyntax(url, policy);
    if (!syntax.ok) return failed(null, `refused: ${syntax.reason}`, false);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
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
      if (status < 200 || status >= 300) {
        const text = await response.body.text().catch(() => '');
        const retryable = status === 429 || status >= 500;
        const after =
          status === 429
            ? retryAfterMs(header(response.headers['retry-after']), deps.now?.() ?? Date.now())
            : undefined;
        return failed(status, `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`, retryable, after);
      }
      const declared = Number(header(response.headers['content-length']));
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        response.body.destroy();
        return failed(
          status,
          `the answer is too large: ${declared} bytes announced, the limit is ${limits.maxBytes}`,
          false,
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > limits.maxBytes) {
          response.body.destroy();
          return failed(
            status,
            `the answer is too large: more than ${limits.maxBytes} bytes (the limit)`,
            false,
          );
        }
        chunks.push(chunk as Buffer);
      }
      return { kind: 'ok', status, body: Buffer.concat(chunks, size), headers: response.headers };
    } catch (caught) {
      const code = (caught as { code?: string }).code;
      if (controller.signal.aborted || /TIMEOUT/.test(code ?? ''))
        return failed(status, `no complete answer within ${limits.timeoutMs / 1000} s (time limit)`, true);
      if (code === 'E_BLOCKED_ADDRESS') return failed(null, (caught as Error).message, false);
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
        return failed(null, 'the host name does not resolve', true);
      if (code === 'ECONNREFUSED') return failed(null, 'the server refused the connection', true);
      const message = String((caught as Error)?.message ?? caught).slice(0, 300);
      return failed(status, `the request failed: ${code ? `${code}: ` : ''}${message}`, true);
    } finally {
      clearTimeout(timer);
    }
  }

  return { exchange, close: () => agent.close().catch(() => {}) };
}

export type Http = ReturnType<typeof createHttp>;
