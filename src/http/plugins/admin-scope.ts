// The admin API's scope: every route registered inside it is authenticated, has the
// institution its path names resolved once, and is authorised by the domain policy
// (src/domain/access/policy.ts) before its handler runs. Handlers read the result with
// `scopeOf(request)` and pass institution ids on to the services.
//
// This runs in onRequest, before the body is parsed or validated: a caller who may not touch
// an institution learns nothing from how the API would have judged their input.
import type { FastifyRequest } from 'fastify';
import { type Access, authorize, type Caller } from '../../domain/access/policy.ts';
import type { Institution } from '../../domain/institutions/service.ts';
import { bearerToken } from '../../lib/secrets.ts';
import type { Services } from '../../services.ts';
import type { App } from '../types.ts';

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

export function adminScope(app: App, services: Services): void {
  app.addHook('onRequest', async (request) => {
    await services.operator.authenticate(bearerToken(request.headers.authorization));
    const caller: Caller = { kind: 'operator', actor: 'operator' };
    const slug = (request.params as { slug?: unknown }).slug;
    const institution =
      typeof slug === 'string' ? await services.institutions.requireBySlug(slug) : undefined;
    authorize(caller, request.routeOptions.config.access, institution?.id);
    request.caller = caller;
    request.institution = institution;
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
