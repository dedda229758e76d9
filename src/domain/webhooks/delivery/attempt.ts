// One delivery attempt: the signed request (Standard Webhooks) and the classification of what
// came back. No database access: the caller records the outcome (state.ts).
//
// Requests go through undici over a keep-alive Agent whose DNS lookup refuses non-public
// addresses, so the address actually connected to is checked, not only the URL when saved.
// The attempt timeout covers everything: connect, send, response headers and body (discarded,
// at most 64 KiB read). Every failure becomes an outcome; nothing is thrown.

import type { KeyObject } from 'node:crypto';
import type dns from 'node:dns';
import { Agent, type Dispatcher, request } from 'undici';
import type { Clock } from '../../../lib/clock.ts';
import { memoized } from '../../../lib/memoized.ts';
import {
  checkUrlSyntax,
  guardedLookup,
  type OutboundPolicy,
  type UrlVerdict,
} from '../../../lib/outbound-url.ts';
import { type AttemptResult, parseRetryAfter } from '../schedule.ts';
import { signatureHeader, signingKey } from '../signing.ts';
import type { Claimed } from './claim.ts';

export interface Attempt extends AttemptResult {
  attemptedAt: Date;
  durationMs: number;
  error: string | null;
  /** The headers sent (the body is the event's payload); null when nothing was sent. */
  requestHeaders: Record<string, string> | null;
  /** The response's headers and first RESPONSE_BODY_KEPT bytes of body; null without a response. */
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
}

/** How much of a response's body is kept for the delivery log (the rest is read and dropped). */
export const RESPONSE_BODY_KEPT = 4096;
/** Most of a response's body read at all: an endpoint answering more is not waited for. */
const RESPONSE_BODY_READ = 64 * 1024;

export interface AttemptDeps {
  agent: Dispatcher;
  clock: Clock;
  policy: OutboundPolicy;
  timeoutMs: number;
  /** The URL check (default: checkUrlSyntax with the policy); a worker keeps its verdicts (urlChecker). */
  checkUrl?: (raw: string) => UrlVerdict;
}

/**
 * checkUrlSyntax with this policy, its verdicts kept by URL (up to 1000, then the set starts
 * again): parsing the URL and its address cost a few microseconds, for every delivery. The
 * address actually connected to is checked at every connection all the same (guardedLookup).
 */
export function urlChecker(policy: OutboundPolicy): (raw: string) => UrlVerdict {
  return memoized((raw) => checkUrlSyntax(raw, policy));
}

/** The keep-alive agent of one worker; `lookup` replaces the system's DNS lookup (tests). */
export function createDeliveryAgent(
  policy: OutboundPolicy,
  timeoutMs: number,
  lookup?: typeof dns.lookup,
): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    connect: { lookup: guardedLookup(policy, lookup) as never, timeout: timeoutMs },
  });
}

const TIMED_OUT = 'attempt timeout';

/**
 * Posts one delivery. `abort` may be aborted from outside (the worker lost its lease; the reason
 * says why): the attempt then ends as a timeout whose error says why. One controller serves
 * both that and the attempt timeout.
 */
export async function attemptDelivery(
  delivery: Claimed,
  deps: AttemptDeps,
  abort: AbortController = new AbortController(),
): Promise<Attempt> {
  const attemptedAt = deps.clock.now();
  const started = performance.now();
  let requestHeaders: Record<string, string> | null = null;
  let response: { headers: Record<string, string>; body: string } | undefined;
  const finish = (result: AttemptResult, error: string | null): Attempt => ({
    ...result,
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    error,
    requestHeaders,
    responseHeaders: response?.headers ?? null,
    responseBody: response?.body ?? null,
  });

  const syntax = deps.checkUrl ? deps.checkUrl(delivery.url) : checkUrlSyntax(delivery.url, deps.policy);
  if (!syntax.ok) return finish({ outcome: 'blocked_address' }, `refused: ${syntax.reason}`);

  const timer = setTimeout(() => abort.abort(TIMED_OUT), deps.timeoutMs);
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  try {
    requestHeaders = {
      'content-type': 'application/json',
      'user-agent': 'ssp-webhooks/1',
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(
        signingKeys(delivery, attemptedAt),
        delivery.event_id,
        timestamp,
        delivery.body,
      ),
    };
    const answer = await request(syntax.url, {
      method: 'POST',
      dispatcher: deps.agent,
      signal: abort.signal,
      headers: requestHeaders,
      body: delivery.body,
    });
    response = { headers: headersOf(answer.headers), body: await bodyStart(answer) };
    const status = answer.statusCode;
    if (status >= 200 && status < 300) return finish({ outcome: 'success', statusCode: status }, null);
    if (status >= 300 && status < 400)
      return finish({ outcome: 'redirect', statusCode: status }, 'redirects are not followed');
    return finish(
      {
        outcome: 'http_error',
        statusCode: status,
        retryAfterMs: parseRetryAfter(answer.headers['retry-after'], attemptedAt),
      },
      `HTTP ${status}`,
    );
  } catch (caught) {
    const code = (caught as { code?: string }).code;
    if (abort.signal.aborted)
      return abort.signal.reason === TIMED_OUT
        ? finish({ outcome: 'timeout' }, `no complete response within ${deps.timeoutMs} ms`)
        : finish({ outcome: 'timeout' }, `abandoned: ${String(abort.signal.reason)}`);
    if (code === 'E_BLOCKED_ADDRESS')
      return finish({ outcome: 'blocked_address' }, (caught as Error).message);
    return finish(
      { outcome: 'connection_error' },
      `${code ? `${code}: ` : ''}${(caught as Error).message}`.slice(0, 500),
    );
  } finally {
    clearTimeout(timer);
  }
}

/** A response's headers as text (a repeated header joined with commas). */
function headersOf(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, 1000);
  return out;
}

/**
 * The first RESPONSE_BODY_KEPT bytes of a response's body as text (storable: no NUL, no broken
 * character at the cut); the rest, up to RESPONSE_BODY_READ, is read and dropped so the
 * connection can be kept alive.
 */
async function bodyStart(answer: Dispatcher.ResponseData): Promise<string> {
  const { body } = answer;
  // No body (the common answer of a receiver): consumed without reading it as a stream.
  if (answer.statusCode === 204 || answer.headers['content-length'] === '0') {
    await body.dump().catch(() => {});
    return '';
  }
  const kept: Buffer[] = [];
  let size = 0;
  let read = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (size < RESPONSE_BODY_KEPT) {
        const part = chunk.subarray(0, RESPONSE_BODY_KEPT - size);
        kept.push(part);
        size += part.length;
      }
      if (read >= RESPONSE_BODY_READ) {
        body.destroy();
        break;
      }
    }
  } catch {
    // A body cut short still tells what it began with.
  }
  return new TextDecoder('utf-8', { fatal: false })
    .decode(Buffer.concat(kept))
    .replace(/\uFFFD$/, '')
    .replaceAll('\u0000', '');
}

/** The current secret, and the previous one while its rotation window lasts. */
function signingKeys(delivery: Claimed, at: Date): KeyObject[] {
  const keys = [signingKey(delivery.secret)];
  if (
    delivery.previous_secret &&
    delivery.previous_secret_expires_at &&
    delivery.previous_secret_expires_at.getTime() > at.getTime()
  )
    keys.push(signingKey(delivery.previous_secret));
  return keys;
}
