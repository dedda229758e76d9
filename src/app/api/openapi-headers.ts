// The headers a route's answer depends on, written into the OpenAPI document from the same route
// settings that make them happen, so the document cannot miss a route: `Idempotency-Key` on every
// creating POST (src/app/context/idempotency.ts) with `Idempotent-Replayed` on a replay, and the
// `RateLimit`/`RateLimit-Policy` fields and a 429's `Retry-After` on every rate-limited route
// (src/app/context/rate-limit.ts). Only the document changes; validation is untouched.

interface RouteLike {
  config?: { idempotent?: boolean; rateLimitPolicy?: string };
}
type Schema = Record<string, unknown> & {
  headers?: { properties?: Record<string, unknown>; required?: string[] };
  response?: Record<string, Record<string, unknown>>;
};

const idempotencyKey = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Makes a retry safe: the first answer (status and body) is kept for 24 hours per caller and key and replayed ' +
    'to a retry with the same key; the same key with a different request is 422 `idempotency_key_reused`; while ' +
    'the first still runs, 409 `idempotency_key_in_use` (docs/versioning.md). 1 to 255 visible ASCII characters.',
};
const replayed = {
  type: 'string',
  enum: ['true'],
  description: 'Present on a replayed answer to a retry with the same Idempotency-Key',
};
const rateLimitFields = (policy: string) => ({
  RateLimit: {
    type: 'string',
    description: `Where the client stands: \`${policy};r=<remaining>;t=<seconds until the window resets>\``,
  },
  'RateLimit-Policy': {
    type: 'string',
    description: `The quota per window of seconds: \`${policy};q=<quota>;w=60\` (configuration; may grow)`,
  },
});
const retryAfter = { type: 'string', description: 'Seconds to wait before retrying' };

function withResponseHeaders(
  responses: Record<string, Record<string, unknown>>,
  headersOf: (status: string) => Record<string, unknown>,
) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const extra = headersOf(status);
      if (Object.keys(extra).length === 0) return [status, response];
      const headers = { ...((response.headers as Record<string, unknown>) ?? {}), ...extra };
      return [status, { ...response, headers }];
    }),
  );
}

/** The swagger `transform`: the route's schema with the headers its settings imply. */
export function documentHeaders<S>({ schema, url, route }: { schema: S; url: string; route: RouteLike }) {
  const config = route.config ?? {};
  if (!schema || (!config.idempotent && config.rateLimitPolicy === undefined)) return { schema, url };
  const next = { ...(schema as Schema) };
  if (config.idempotent) {
    next.headers = {
      type: 'object',
      ...next.headers,
      properties: { ...next.headers?.properties, 'Idempotency-Key': idempotencyKey },
    } as Schema['headers'];
  }
  const policy = config.rateLimitPolicy;
  next.response = withResponseHeaders(next.response ?? {}, (status) => ({
    ...(config.idempotent && status.startsWith('2') ? { 'Idempotent-Replayed': replayed } : {}),
    ...(policy !== undefined ? rateLimitFields(policy) : {}),
    ...(policy !== undefined && status === '429' ? { 'Retry-After': retryAfter } : {}),
  }));
  return { schema: next as S, url };
}
