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
import { checkUrlSyntax, guardedLookup, type OutboundPolicy } from '../../../lib/outbound-url.ts';
import { type AttemptResult, parseRetryAfter } from '../schedule.ts';
import { signatureHeader, signingKey } from '../signing.ts';
import type { Claimed } from './claim.ts';

export interface Attempt extends AttemptResult {
  attemptedAt: Date;
  durationMs: number;
  error: string | null;
}

export interface AttemptDeps {
  agent: Dispatcher;
  clock: Clock;
  policy: OutboundPolicy;
  timeoutMs: number;
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
  const finish = (result: AttemptResult, error: string | null): Attempt => ({
    ...result,
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    error,
  });

  const syntax = checkUrlSyntax(delivery.url, deps.policy);
  if (!syntax.ok) return finish({ outcome: 'blocked_address' }, `refused: ${syntax.reason}`);

  const timer = setTimeout(() => abort.abort(TIMED_OUT), deps.timeoutMs);
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  try {
    const response = await request(syntax.url, {
      method: 'POST',
      dispatcher: deps.agent,
      signal: abort.signal,
      headers: {
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
      },
      body: delivery.body,
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
    const status = response.statusCode;
    if (status >= 200 && status < 300) return finish({ outcome: 'success', statusCode: status }, null);
    if (status >= 300 && status < 400)
      return finish({ outcome: 'redirect', statusCode: status }, 'redirects are not followed');
    return finish(
      {
        outcome: 'http_error',
        statusCode: status,
        retryAfterMs: parseRetryAfter(response.headers['retry-after'], attemptedAt),
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
