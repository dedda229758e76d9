// The fetch the OpenID Connect client uses for every request to a provider (discovery, token,
// JWKS, userinfo). Same rules as webhook delivery (src/lib/outbound-url.ts): the URL's syntax and
// IP-literal host are checked before each request, and a name is resolved by a lookup that
// refuses non-public addresses at connect time, so a name that later resolves to a private
// address (DNS rebinding) is still refused. Redirects are never followed, and a response body is
// cut off at MAX_RESPONSE_BYTES (metadata, keys and tokens are a few kilobytes).
import type dns from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';
import { checkUrlSyntax, guardedLookup, type OutboundPolicy } from '../../lib/outbound-url.ts';
import { OutboundRefusedError } from './sign-in-error.ts';

const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface GuardedFetchOptions {
  policy: OutboundPolicy;
  /** Connect timeout; the whole request's timeout is the caller's signal. */
  connectTimeoutMs: number;
  /** DNS lookup (tests replace it to make a name resolve to a chosen address). */
  lookup?: typeof dns.lookup;
}

export interface GuardedFetch {
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal },
  ): Promise<Response>;
  close(): Promise<void>;
}

class ResponseTooLargeError extends Error {
  readonly code = 'E_RESPONSE_TOO_LARGE';
}

async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | null> {
  if (!body) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) throw new ResponseTooLargeError(`the response is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connect: {
      lookup: guardedLookup(options.policy, options.lookup) as never,
      timeout: options.connectTimeoutMs,
    },
  });
  return {
    async fetch(url, init) {
      const verdict = checkUrlSyntax(url, options.policy);
      if (!verdict.ok) throw new OutboundRefusedError(url, verdict.reason);
      const response = await undiciFetch(verdict.url, {
        method: init.method,
        headers: init.headers,
        body: init.body as never,
        signal: init.signal,
        redirect: 'manual',
        dispatcher: agent,
      });
      const body = await readLimited(response.body as ReadableStream<Uint8Array> | null, MAX_RESPONSE_BYTES);
      return new Response(body as never, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers as never,
      });
    },
    close: () => agent.close(),
  };
}
