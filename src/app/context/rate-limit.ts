// Per-client rate limits (spec section 8). Counters live in memory, or in Redis when
// REDIS_URL is set so that several instances share one count. The client is request.ip,
// which honours TRUST_PROXY.
import rateLimit from '@fastify/rate-limit';
import { ApiError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import type { App } from '../types.ts';

export interface RateLimitOptions {
  /** Prefix of the Redis keys; tests give each app its own. */
  nameSpace?: string;
}

export async function registerRateLimit(app: App, services: Services, options: RateLimitOptions = {}) {
  await app.register(rateLimit, {
    global: false,
    redis: services.redis,
    nameSpace: options.nameSpace ?? 'ssp-rate-limit:',
    // If Redis is unreachable, serve rather than fail every request.
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new ApiError('rate_limited', {
        detail: `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
        max: context.max,
      }),
  });
}

/** Route config for a limit of `max` requests per minute per client. */
export function perMinute(max: number) {
  return { rateLimit: { max, timeWindow: 60_000 } };
}
