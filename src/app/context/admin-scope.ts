// The admin API's scope: every route registered inside it is authenticated (the operator's
// bearer token, or a session cookie from sign-in), has the institution its path names resolved
// once, and is authorised by the domain policy (src/domain/access/policy.ts) before its handler
// runs. Handlers read the result with `callerOf` / `institutionOf` and pass institution ids on
// to the services. A state-changing request made with a cookie must carry its CSRF token, and
// every change that succeeds is written to the admin audit (who, when, which session).
//
// This runs in onRequest, before the body is parsed or validated: a caller who may not touch
// an institution learns nothing from how the API would have judged their input. Feed secrets
// never pass here (only the operator token is accepted as a bearer), and the feed routes never
// read cookies.
import type { FastifyRequest } from 'fastify';
import { type Access, authorize, type Caller } from '../../domain/access/policy.ts';
import type { Institution } from '../../domain/institutions/service.ts';
import { ApiError } from '../../errors.ts';
import { bearerToken } from '../../lib/secrets.ts';
import type { Services } from '../../services.ts';
import type { App } from '../types.ts';
import { requireCsrf, sessionCookies } from './session-cookies.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route needs (see Access); a route of the admin scope without one is operator-only. */
    access?: Access;
  }
  interface FastifyRequest {
    caller?: Caller;
    institution?: Institution;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The caller of a request: the operator token if one is sent, else the session cookie. */
export async function authenticate(request: FastifyRequest, services: Services): Promise<Caller> {
  const header = request.headers.authorization;
  if (header !== undefined) {
    await services.operator.authenticate(bearerToken(header));
    return { kind: 'operator', actor: 'operator' };
  }
  const caller = await services.sessions.authenticate(
    sessionCookies(services.config.publicBaseUrl).read(request),
  );
  if (!caller) {
    throw new ApiError('unauthorized', {
      detail: 'send Authorization: Bearer <operator token>, or sign in (/auth/sign-in) for a session',
    });
  }
  return caller;
}

export function adminScope(app: App, services: Services): void {
  app.addHook('onRequest', async (request) => {
    const caller = await authenticate(request, services);
    const slug = (request.params as { slug?: unknown }).slug;
    const institution =
      typeof slug === 'string' ? await services.institutions.requireBySlug(slug) : undefined;
    authorize(caller, request.routeOptions.config.access, institution);
    request.caller = caller;
    request.institution = institution;
  });
  app.addHook('onRequest', requireCsrf(app));
  // Written before the response leaves (onSend, not onResponse): a caller told that a change
  // succeeded can find it in the audit. The change itself has committed by then; a failed audit
  // write is logged as an error rather than turning that success into a failure.
  app.addHook('onSend', async (request, reply, payload) => {
    if (SAFE_METHODS.has(request.method) || !request.caller || reply.statusCode >= 400) return payload;
    await services.adminAudit
      .record({
        caller: request.caller,
        institutionId: request.institution?.id ?? null,
        action: `${request.method} ${request.routeOptions.url}`,
        target: request.url.split('?')[0],
        status: reply.statusCode,
        requestId: request.id,
      })
      .catch((error) => request.log.error({ err: error }, 'admin audit write failed'));
    return payload;
  });
}

/** The caller of an admin-scope request (set by the scope before the handler). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('callerOf: the request did not pass the admin scope');
  return request.caller;
}

/** The institution named by the path of an admin-scope request. */
export function institutionOf(request: FastifyRequest): Institution {
  if (!request.institution) throw new Error('institutionOf: the route names no institution');
  return request.institution;
}
