// buildApp(services) -> a ready-to-listen Fastify instance. No I/O happens at import time.
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyReply, type FastifyServerOptions } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import { registerRateLimit } from './api/rate-limit.ts';
import { installErrorHandling } from './context/errors.ts';
import { registerRoutes } from './routes.ts';
import type { App } from './types.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Redis key prefix for rate-limit counters (tests isolate themselves with one). */
  rateLimitNameSpace?: string;
}

/** A request URL as logged: one-time sign-in links and OIDC callback parameters masked. */
export function loggableUrl(url: string): string {
  return url
    .replace(/^(\/auth\/operator-link\/)[^/?#]+/, '$1[redacted]')
    .replace(/([?&](?:code|state|session_state|id_token)=)[^&#]*/g, '$1[redacted]');
}

/** Log settings: JSON lines, request id on each, credentials never written. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
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

export async function buildApp(services: Services, options: AppOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(services.config.logLevel),
    // Fastify accepts a hop count too; its type omits it.
    trustProxy: services.config.trustProxy as boolean | string[],
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // A 5000-row roster page is about 1.2 MB; the largest documented page fits well under this.
    bodyLimit: 16 * 1024 * 1024,
    // Shutting down is answered below, in the flat error shape.
    return503OnClosing: false,
    // Prototype-polluting keys are dropped from JSON bodies rather than failing the request:
    // a row carrying one stays that row's problem, not the whole batch's (see the JSON parser).
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    // Errors raised before routing (a malformed URL, say) get the same flat body as the rest.
    frameworkErrors: (error, _request, reply) => {
      (reply as FastifyReply).status(400).send({ error: 'invalid_request', detail: error.message });
    },
  }).withTypeProvider() as unknown as App;

  app.setValidatorCompiler(TypeBoxValidatorCompiler);
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
  installErrorHandling(app);
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

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Student Support Platform API',
        version: '1.0.0',
        description:
          'How student information systems, help desks and administrators talk to the Student Support ' +
          'Platform: the SIS feeds (roster, programs, campuses, terms, units and enrolments), the help-desk ' +
          'sync, signed webhooks, and the admin API. Errors are JSON objects {"error": "<stable_code>", ...} ' +
          'with optional `detail`, `field` and `max`. Admin listings page by cursor (`limit`, `cursor`, ' +
          '`next_cursor`).',
      },
      // Every example request carries this host (PUBLIC_BASE_URL, default http://localhost:PORT).
      servers: [{ url: services.config.publicBaseUrl }],
      tags: [
        {
          name: 'sis',
          description: 'The SIS feeds: roster sync, and programs, campuses, terms, units and enrolments',
        },
        {
          name: 'help-desk sync',
          description: 'An external help desk mirrors ticket status onto help requests',
        },
        { name: 'admin', description: 'Institutions, cohorts, secrets, listings and the history of pushes' },
        {
          name: 'admin: help desk',
          description: 'Help requests, staff changes, the help-sync secret and the event log',
        },
        { name: 'webhooks', description: 'Webhook endpoints, their delivery logs and metrics' },
      ],
      components: {
        securitySchemes: {
          rosterSecret: {
            type: 'http',
            scheme: 'bearer',
            description: 'Per-institution roster feed secret (ssp_roster_…) or the platform bootstrap secret',
          },
          syncSecret: {
            type: 'http',
            scheme: 'bearer',
            description: 'Per-institution help-desk sync secret (ssp_sync_…)',
          },
          operatorToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'Operator token (ssp_op_…) for the admin API',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'ssp_session',
            description:
              'Session cookie set by sign-in (/auth/{slug}/sign-in); named __Host-ssp_session when the service is served over https. ' +
              'State-changing requests made with it must send the x-csrf-token header (from GET /admin/v1/me).',
          },
        },
      },
    },
  });
  // The reference page works offline: its script is served from node_modules, and everything
  // that would reach other hosts is off (web fonts, the hosted API client and its test-request
  // buttons, the hosted AI agent and MCP generator, telemetry). Fonts fall back to the system's.
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      pageTitle: 'Student Support Platform API',
      withDefaultFonts: false,
      hideClientButton: true,
      hideTestRequestButton: true,
      showDeveloperTools: 'never',
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await registerRateLimit(app, services, { nameSpace: options.rateLimitNameSpace });
  await registerRoutes(app, services);
  return app;
}
