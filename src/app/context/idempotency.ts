// Idempotency-Key on every POST that creates something: a route whose documented answers include
// 201 Created, or one that says `config.idempotent` (the student pages' help form). The key comes
// from the `Idempotency-Key` header, or from a form's hidden `_idempotency_key` field, so a form
// posted twice (a double click, a retry after a dropped connection) creates one thing. Rules and
// storage: src/domain/idempotency/keys.ts. Runs after the request context (the caller is known)
// and after validation: a request refused for its input stores nothing, as Stripe does.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../domain/access/policy.ts';
import {
  type Claim,
  claimKey,
  completeKey,
  expireKeys,
  type IdempotencyDeps,
  idempotencyKeyPattern,
  type KeyRef,
  releaseKey,
  requestHash,
} from '../../domain/idempotency/keys.ts';
import { ApiError } from '../../errors.ts';
import type { App } from '../types.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes an Idempotency-Key (set automatically for POST routes answering 201). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyKey?: KeyRef;
  }
}

/** Headers of the first answer that a replay repeats. */
const replayedHeaders = ['content-type', 'location', 'cache-control'];
/** Form fields that are not part of what was asked for. */
const formControls = new Set(['_csrf', '_idempotency_key']);

function callerKey(caller: Caller | undefined): string | undefined {
  if (!caller) return undefined;
  if (caller.kind === 'operator') return 'operator';
  if (caller.kind === 'person') return `person:${caller.personId}`;
  return `student:${caller.studentId}`;
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (typeof header === 'string') return header;
  const field = (request.body as Record<string, unknown> | undefined)?._idempotency_key;
  return typeof field === 'string' && field !== '' ? field : undefined;
}

function bodyOf(request: FastifyRequest): unknown {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([name]) => !formControls.has(name)));
}

function refuse(claim: Exclude<Claim, { kind: 'claimed' | 'replay' }>): ApiError {
  return claim.kind === 'reused'
    ? new ApiError('idempotency_key_reused', {
        detail: 'this Idempotency-Key was used with a different request; use a new key for a new request',
      })
    : new ApiError('idempotency_key_in_use', {
        detail: 'the first request with this Idempotency-Key is still running; retry in a moment',
      });
}

/** Every this many claims, keys past their 24 hours are deleted (a bounded batch, off the answer). */
const EXPIRE_EVERY = 100;

export function registerIdempotency(app: App, deps: IdempotencyDeps): void {
  let claims = 0;
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
    if (methods.includes('POST') && '201' in responses) route.config = { ...route.config, idempotent: true };
  });

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config?.idempotent) return;
    const key = keyOf(request);
    const caller = callerKey(request.caller);
    if (key === undefined || caller === undefined) return;
    if (!idempotencyKeyPattern.test(key)) {
      throw new ApiError('invalid_idempotency_key', {
        detail: 'an Idempotency-Key is 1 to 255 visible ASCII characters (a UUID is a good choice)',
      });
    }
    const ref = { caller, key };
    const hash = requestHash({
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      params: request.params,
      body: bodyOf(request),
    });
    const claim = await claimKey(deps, ref, hash);
    if (claim.kind === 'claimed') {
      request.idempotencyKey = ref;
      claims += 1;
      if (claims % EXPIRE_EVERY === 0) {
        expireKeys(deps).catch((error) => request.log.error({ err: error }, 'idempotency expiry failed'));
      }
      return;
    }
    if (claim.kind !== 'replay') throw refuse(claim);
    // The change was made by the first request; this one changes nothing (nor is audited again).
    request.unchanged = true;
    const { status, headers, body } = claim.answer;
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    return reply.status(status).header('idempotent-replayed', 'true').send(body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const ref = request.idempotencyKey;
    if (!ref) return payload;
    request.idempotencyKey = undefined;
    // A redirect has no body (undefined); a stream cannot be stored, so its key is released. So is
    // a refusal (4xx, a page's form shown again with its problems): the corrected request reuses
    // the key, and a server error (5xx) lets the retry run again.
    const body = payload === undefined || payload === null ? '' : payload;
    if (reply.statusCode >= 400 || typeof body !== 'string') {
      await releaseKey(deps, ref).catch((error) =>
        request.log.error({ err: error }, 'idempotency release failed'),
      );
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of replayedHeaders) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await completeKey(deps, ref, { status: reply.statusCode, headers, body }).catch((error) =>
      request.log.error({ err: error }, 'idempotency record failed'),
    );
    return payload;
  });
}
