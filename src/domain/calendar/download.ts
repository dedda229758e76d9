// One HTTP fetch of a feed URL, with undici, inside the outbound URL guard:
// - every hop's URL passes checkUrlSyntax (https, no literal loopback/private/metadata address),
//   and the connection's DNS answer passes guardedLookup (a name that resolves to a refused
//   address is never connected to, even when it resolved to a public one when saved);
// - redirects (301, 302, 303, 307, 308) are followed by hand, at most `maxRedirects` hops;
// - conditional request: If-None-Match / If-Modified-Since from the last complete response;
// - one time limit for the whole fetch (connect, hops, headers, body), and a size limit applied
//   while the body streams in (the connection is cut as soon as it is passed).
// Never throws: every failure is an outcome with a reason a person can read.
// A fresh Agent per fetch: feeds are fetched hourly, so keeping connections buys nothing, and
// nothing outlives the fetch.

import type dns from 'node:dns';
import { Agent, type Dispatcher, request } from 'undici';
import { readBounded } from '../../lib/bounded-body.ts';
import { checkUrlSyntax, guardedLookup, type OutboundPolicy } from '../../lib/outbound-url.ts';
import type { FetchLimits } from './schedule.ts';

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type Download =
  | {
      kind: 'ok';
      status: number;
      body: Uint8Array;
      contentType: string | undefined;
      etag: string | null;
      lastModified: string | null;
    }
  | { kind: 'not_modified'; status: 304 }
  | { kind: 'failed'; status: number | null; error: string };

export interface DownloadDeps {
  policy: OutboundPolicy;
  limits: Pick<FetchLimits, 'timeoutMs' | 'maxBytes' | 'maxRedirects'>;
  /** DNS lookup behind the connect-time check (default: the system's). */
  lookup?: typeof dns.lookup;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

export async function downloadFeed(
  url: string,
  validators: Validators,
  deps: DownloadDeps,
): Promise<Download> {
  const { policy, limits } = deps;
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy, deps.lookup) as never, timeout: limits.timeoutMs },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
  });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  let lastStatus: number | null = null;
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const where = hop === 0 ? '' : ` (redirect ${hop}: ${current.slice(0, 300)})`;
      const syntax = checkUrlSyntax(current, policy);
      if (!syntax.ok) return failure(lastStatus, `refused: ${syntax.reason}${where}`);
      const headers: Record<string, string> = {
        accept: 'text/calendar, application/calendar+json;q=0.1, */*;q=0.1',
        'user-agent': 'ssp-calendar/1',
      };
      if (validators.etag) headers['if-none-match'] = validators.etag;
      if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
      const response = await request(syntax.url, {
        method: 'GET',
        dispatcher: agent,
        signal: controller.signal,
        headers,
      });
      const status = response.statusCode;
      lastStatus = status;
      if (REDIRECTS.has(status)) {
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        const location = header(response.headers.location);
        if (!location) return failure(status, `HTTP ${status} redirect without a Location header${where}`);
        if (hop >= limits.maxRedirects)
          return failure(status, `too many redirects: more than ${limits.maxRedirects} hops`);
        try {
          current = new URL(location, current).toString();
        } catch {
          return failure(status, `HTTP ${status} redirect to an invalid Location${where}`);
        }
        continue;
      }
      if (status === 304) {
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        if (!validators.etag && !validators.lastModified)
          return failure(status, 'HTTP 304 Not Modified to a request that was not conditional');
        return { kind: 'not_modified', status: 304 };
      }
      if (status < 200 || status >= 300) {
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        return failure(
          status,
          `HTTP ${status}${status === 404 ? ' Not Found: check the feed URL' : ''}${where}`,
        );
      }
      const declared = Number(header(response.headers['content-length']));
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        response.body.destroy();
        return failure(
          status,
          `the calendar is too large: ${megabytes(declared)} announced, the limit is ${megabytes(limits.maxBytes)}`,
        );
      }
      return await readBody(response, status, limits);
    }
  } catch (caught) {
    return failureOf(caught, controller.signal.aborted, lastStatus, limits);
  } finally {
    clearTimeout(timer);
    agent.destroy().catch(() => {});
  }
}

const failure = (status: number | null, error: string): Download => ({ kind: 'failed', status, error });

/** A successful response's body, read up to the size limit (a failure past it). */
async function readBody(
  response: Dispatcher.ResponseData,
  status: number,
  limits: DownloadDeps['limits'],
): Promise<Download> {
  const body = await readBounded(response.body, limits.maxBytes);
  if (!body)
    return failure(
      status,
      `the calendar is too large: more than ${megabytes(limits.maxBytes)} (the limit); reading stopped there`,
    );
  return {
    kind: 'ok',
    status,
    body,
    contentType: header(response.headers['content-type']),
    etag: header(response.headers.etag) ?? null,
    lastModified: header(response.headers['last-modified']) ?? null,
  };
}

/** What went wrong, in words, from an error thrown while fetching (`aborted`: the time limit struck). */
function failureOf(
  caught: unknown,
  aborted: boolean,
  lastStatus: number | null,
  limits: DownloadDeps['limits'],
): Download {
  const code = (caught as { code?: string }).code;
  if (aborted)
    return failure(lastStatus, `no complete response within ${limits.timeoutMs / 1000} s (time limit)`);
  if (code === 'E_BLOCKED_ADDRESS') return failure(null, (caught as Error).message);
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')
    return failure(
      lastStatus,
      `the connection closed before the whole calendar arrived (${code}); the body is truncated`,
    );
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return failure(lastStatus, `no complete response within ${limits.timeoutMs / 1000} s (time limit)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failure(null, 'the host name does not resolve');
  if (code === 'ECONNREFUSED') return failure(null, 'the server refused the connection');
  const message = String((caught as Error)?.message ?? caught).slice(0, 300);
  return failure(lastStatus, `could not fetch the calendar: ${code ? `${code}: ` : ''}${message}`);
}
