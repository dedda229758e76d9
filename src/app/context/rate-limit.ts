// Per-client rate limits (spec section 8). Counters live in memory, or in Redis when
// REDIS_URL is set so that several instances share one count. The client is request.ip,
// which honours TRUST_PROXY.
//
// Every answer of a limited route says where the client stands, in the IETF draft's fields
// (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: roster;q=20;w=60` (the quota per
// window of seconds) and `RateLimit: roster;r=<remaining>;t=<seconds until the window resets>`;
// a 429 keeps its delta-seconds `Retry-After`. They are written from the counters the limiter
// keeps (its `x-ratelimit-*` headers, which stay for clients that read those).
import rateLimit from '@fastify/rate-limit';
import { ApiError } from '../../errors.ts';
import type { Runtime } from '../../runtime.ts';
import type { App } from '../types.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The name of the route's limit in the RateLimit fields (roster, enrolments, help-sync). */
    rateLimitPolicy?: string;
  }
}

export interface RateLimitOptions {
  /** Prefix of the Redis keys; tests give each app its own. */
  nameSpace?: string;
}

/** `runtime.redis` is read here, once: Redis is opened only by a process that serves HTTP. */
export async function registerRateLimit(
  app: App,
  runtime: Pick<Runtime, 'redis'>,
  options: RateLimitOptions = {},
) {
  await app.register(rateLimit, {
    global: false,
    redis: runtime.redis,
    nameSpace: options.nameSpace ?? 'ssp-rate-limit:',
    // If Redis is unreachable, serve rather than fail every request.
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new ApiError('rate_limited', {
        detail: `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
        max: context.max,
      }),
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const policy = request.routeOptions.config?.rateLimitPolicy;
    const limit = reply.getHeader('x-ratelimit-limit');
    // No limit was counted (the counters were unreachable and the request was served anyway).
    if (policy === undefined || limit === undefined) return payload;
    const remaining = Number(reply.getHeader('x-ratelimit-remaining') ?? 0);
    const reset = Number(reply.getHeader('x-ratelimit-reset') ?? 0);
    reply.header('ratelimit-policy', `${policy};q=${limit};w=60`);
    reply.header('ratelimit', `${policy};r=${remaining};t=${reset}`);
    return payload;
  });
}

/** Route config for a limit of `max` requests per minute per client, named `policy`. */
export function perMinute(max: number, policy: string) {
  return { rateLimit: { max, timeWindow: 60_000 }, rateLimitPolicy: policy };
}
