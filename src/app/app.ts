// buildApp(runtime) -> a ready-to-listen Fastify instance. No I/O happens at import time.
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { ApiError } from '../errors.ts';
import { tracing } from '../lib/telemetry/tracing.ts';
import type { Runtime } from '../runtime.ts';
import { installErrorHandling } from './api/errors.ts';
import { registerApi } from './api/index.ts';
import { registerOpenApi } from './api/openapi.ts';
import { recordRouteMethods } from './context/allowed-methods.ts';
import { serializersOnFirstUse, validatorOnFirstUse } from './context/compiled-on-first-use.ts';
import { registerDeps } from './context/deps.ts';
import { registerHttpMetrics } from './context/http-metrics.ts';
import { registerIdempotency } from './context/idempotency.ts';
import { registerRateLimit } from './context/rate-limit.ts';
import { registerRequestContext } from './context/request-context.ts';
import { registerSessionCookies } from './context/session-cookies.ts';
import { registerPages } from './pages/index.ts';
import type { App } from './types.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Redis key prefix for rate-limit counters (tests isolate themselves with one). */
  rateLimitNameSpace?: string;
}

/**
 * A request URL as logged: one-time sign-in links, OIDC callback parameters, the listings'
 * searches by email or name (`email`, `q`: personal data, docs/privacy.md) and anything named
 * like a credential (a token pasted into a query string by mistake) masked.
 */
export function loggableUrl(url: string): string {
  return url
    .replace(/^(\/auth\/operator-link\/)[^/?#]+/, '$1[redacted]')
    .replace(
      /([?&](?:code|state|session_state|id_token|email|q|access_token|token|secret|password)=)[^&#]*/gi,
      '$1[redacted]',
    );
}

/** Log settings: JSON lines, request id on each, credentials never written. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  const traced = tracing();
  return {
    level,
    // With tracing on, each line carries the trace and span it was written in.
    ...(traced ? { mixin: () => traced.traceFields() ?? {} } : {}),
    serializers: {
      req: (request) => ({
        method: request.method,
        url: loggableUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
      }),
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret', 'token', '*.token'],
      censor: '[redacted]',
    },
  };
}

/** Where the HTML pages live: a malformed address under them still answers as a page. */
const pagePrefixes = ['/console', '/app', '/auth'];

/**
 * The URL to route: as sent, unless its path cannot be percent-decoded (`/console/%E0%A4%A`) and
 * names a page, which is then routed to that surface's not-found page instead of the JSON 400
 * the router would answer (the JSON API keeps its 400 `invalid_request`).
 */
export function routableUrl(url: string): string {
  const path = url.split('?')[0];
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    const prefix = pagePrefixes.find((p) => path === p || path.startsWith(`${p}/`));
    return prefix === undefined ? url : `${prefix}/--malformed-address--`;
  }
}

/** Routes polled every few seconds (probes, scrapes): their request lines are logged at debug. */
const pollRoutes = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * Fastify's request lines ("incoming request", "request completed"), at debug instead of info
 * for the polled routes, so that a load balancer's probes do not drown the log; their failures
 * are still logged as errors.
 */
class RequestLines extends LogController {
  incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (pollRoutes.has(request.routeOptions.url ?? ''))
      request.log.debug({ req: request }, 'incoming request');
    else super.incomingRequest(request, reply);
  }
  requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && pollRoutes.has(request.routeOptions.url ?? ''))
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
    else super.requestCompleted(error, request, reply);
  }
}

/** A client's request id, when it is a short safe token (letters, digits, `.`, `_`, `-`; 64 at most). */
export function clientRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(header) ? header : undefined;
}

/**
 * The HTTP application over a process's runtime (src/runtime.ts): all it reads, and what its
 * route modules read as `request.deps`. The runtime stays the caller's to close.
 */
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(runtime.config.logLevel),
    // Fastify accepts a hop count too; its type omits it.
    trustProxy: runtime.config.trustProxy as boolean | string[],
    // A client's x-request-id is kept (to follow a call through logs and the audit) only when it
    // is a short, safe token; anything else could forge log lines or fill the audit, so a fresh
    // id is used instead. Fastify would take the header unchecked, hence requestIdHeader: false.
    requestIdHeader: false,
    logController: new RequestLines(),
    genReqId: (request) => clientRequestId(request.headers['x-request-id']) ?? randomUUID(),
    // A 5000-row roster page is about 1.2 MB; the largest documented page fits well under this.
    bodyLimit: 16 * 1024 * 1024,
    // Shutting down is answered below, in the flat error shape.
    return503OnClosing: false,
    // Prototype-polluting keys are dropped from JSON bodies rather than failing the request:
    // a row carrying one stays that row's problem, not the whole batch's (see the JSON parser).
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    rewriteUrl: (request) => routableUrl(request.url ?? '/'),
    // Past Fastify's 100 characters, a path parameter was refused before routing, in the API's
    // JSON shape even on a page. Routed, a long id meets its route's schema: the not-found page,
    // or the API's own answer. No route here is a regular expression, so the length costs nothing.
    routerOptions: { maxParamLength: 2048 },
    schemaController: serializersOnFirstUse(),
    // Errors raised before routing (a malformed URL, say) get the same flat body as the rest.
    frameworkErrors: (error, _request, reply) => {
      (reply as FastifyReply).status(400).send({ error: 'invalid_request', detail: error.message });
    },
  }).withTypeProvider() as unknown as App;

  // Each route's validator and serializer are compiled on its first request (compiled-on-first-use.ts).
  app.setValidatorCompiler(validatorOnFirstUse);
  // Every endpoint takes JSON only: without the built-in text/plain parser, any other body is 415.
  app.removeContentTypeParser('text/plain');
  // A bodiless request (a DELETE, a POST action) sent with the usual JSON header and no body is
  // no body, not an empty JSON document; endpoints that need a body still say `empty_body`.
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && request.method === 'DELETE') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
  // Once close() starts, requests that still arrive on open connections are turned away with
  // 503, so a load balancer retries them elsewhere; requests already in flight finish.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close').header('retry-after', '1');
    throw new ApiError('shutting_down', { detail: 'this instance is shutting down; retry' });
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerHttpMetrics(app);
  // What handlers hand to the domain: `request.deps`.
  registerDeps(app, runtime);

  // Every route is recorded as it is added, so a wrong method on a known path answers 405.
  app.decorate('allowedMethods', recordRouteMethods(app));
  // The JSON error body is the application's default answer; each page surface sets its own.
  installErrorHandling(app);
  // Cookies are parsed (an onRequest hook of their own) before the context reads the session.
  await registerSessionCookies(app, runtime);
  registerRequestContext(app);
  registerIdempotency(app, runtime);
  await registerRateLimit(app, runtime, { nameSpace: options.rateLimitNameSpace });
  await registerOpenApi(app, runtime);
  // The JSON API and the HTML pages: siblings, each answering failures in its own form.
  await registerApi(app, runtime);
  await registerPages(app, runtime);
  return app;
}
