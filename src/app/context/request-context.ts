// The request context: one plugin at the application's root resolves, once per request, who is
// calling, the institution the path names and whether the caller may use the route, for the
// admin API, the console, the student pages and the sign-in pages alike. Every route declares
// what it needs in `config.access` (src/domain/access/policy.ts); the application refuses to
// start with a route that declares none. Handlers read the answer with `callerOf` and
// `institutionOf` and pass it on to the domain.
//
// Which credential a request is read for is the route's `config.credential` (CredentialKind
// below): a feed names its secret, and any other route reads the operator token or the session
// (both, unless it names one). One answer per surface for a missing or wrong credential, as the
// integration interface documents it (spec 5 and 7):
// - roster secret (/api/sis/sync, /api/sis/enrolments): 401 `unauthorized`; 503
//   `not_configured` while the feed has no secret at all;
// - help-sync secret (/api/integrations/help-sync): 401 `sync_secret_missing`,
//   `sync_secret_wrong`, `sync_secret_revoked` or `sync_secret_never_issued` (docs/help-sync.md);
// - operator token or session: 401 `unauthorized`, which a page surface turns into a redirect to
//   sign-in. A wrong operator token is refused rather than ignored.
//
// Order, per request:
// - onRequest: the caller (operator token, else session cookie; `public` and `feed` routes read
//   neither), then the institution of a `:slug` path, then the policy's decision. This runs
//   before the body is parsed: a caller who may not touch an institution learns nothing from how
//   the route would have judged their input. Then the archived institution's rule (read-only;
//   closed to its students: src/domain/institutions/archiving.ts). A refusal is thrown as an
//   ApiError, and each surface's error handler gives it its own form (a JSON body, an HTML page,
//   a redirect to sign-in);
// - preParsing: a roster secret, after the rate limit and before the body is parsed, so an
//   unknown caller learns nothing about the body it sent;
// - preValidation: a help-sync secret, after parsing because the institution the body names tells
//   "never issued" from "wrong", and before the schema (the route checks the content type before
//   it and unknown fields after it); then the CSRF token of a state-changing request
//   authenticated by a cookie (from the `x-csrf-token` header, or the `_csrf` field of a form,
//   which is parsed by then);
// - onSend: the admin audit of every change a person or the operator made (who, when, which
//   session), written before the response leaves so that a caller told of a success finds it.
//
// Cost: one indexed SELECT for a session (none for the operator token or an anonymous route),
// one for the institution of a `:slug` path.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditSubjectOf, recordAdminChange, subjectOfRoute } from '../../domain/access/audit.ts';
import {
  type Access,
  accessLevels,
  anonymousAccess,
  authorize,
  type Caller,
} from '../../domain/access/policy.ts';
import { refuseWhileArchived } from '../../domain/institutions/archiving.ts';
import { requireInstitution } from '../../domain/institutions/institutions.ts';
import type { Institution } from '../../domain/institutions/schemas.ts';
import { authenticateSession } from '../../domain/people/sessions.ts';
import { authenticateSync, type SyncCaller } from '../../domain/secrets/help-sync-secrets.ts';
import { authenticateOperator } from '../../domain/secrets/operator-credentials.ts';
import { authenticateRoster, type RosterCaller } from '../../domain/secrets/roster-secrets.ts';
import { ApiError } from '../../errors.ts';
import { bearerToken } from '../../lib/secrets.ts';
import { isScrapeToken } from '../../lib/telemetry/metrics.ts';
import type { App } from '../types.ts';
import { requireCsrf, sessionCookies } from './session-cookies.ts';

/**
 * The credential a route reads: a machine's secret (`roster_secret`, `sync_secret`, or
 * `scrape_token` for GET /metrics; a feed route must name one, and only a feed route may), or
 * `operator` (the bearer token only) or `session` (the cookie only) for a route that narrows the
 * default of reading both.
 */
export const credentialKinds = [
  'roster_secret',
  'sync_secret',
  'scrape_token',
  'operator',
  'session',
] as const;
export type CredentialKind = (typeof credentialKinds)[number];
const feedCredentials: ReadonlySet<CredentialKind> = new Set([
  'roster_secret',
  'sync_secret',
  'scrape_token',
]);

/** A feed's caller, as its secret authenticated it. */
type FeedCaller =
  | { kind: 'roster_secret'; caller: RosterCaller }
  | { kind: 'sync_secret'; caller: SyncCaller };

/** A route as the request context knows it: what it needs. */
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the application with the access it declared (the access matrix reads it). */
    routeAccess: RouteAccess[];
  }
  interface FastifyContextConfig {
    /** What the route needs (see Access in src/domain/access/policy.ts). */
    access?: Access;
    /** The credential the route reads (see CredentialKind); a feed route names its secret. */
    credential?: CredentialKind;
    /** The route archives or restores its institution: it is not refused while archived. */
    whileArchived?: boolean;
  }
  interface FastifyRequest {
    caller?: Caller;
    institution?: Institution;
    /** A feed request's caller, resolved once by the context from the route's credential. */
    feedCaller?: FeedCaller;
    /** Set by a handler whose state-changing request changed nothing (a confirmation step). */
    unchanged?: boolean;
    /** What an audited change acts on, in words, read before the handler (the admin audit's subject). */
    auditSubject?: string;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Routes that plugins register (the API reference, static assets): public by nature. */
const pluginRoutePrefixes = ['/docs', '/assets/'];

/** The access a request's route declared; undefined for a request that matched no route. */
export function accessOf(request: FastifyRequest): Access | undefined {
  return request.routeOptions.config?.access;
}

/** The credential a request's route reads; undefined for a request that matched no route. */
function credentialOf(request: FastifyRequest): CredentialKind | undefined {
  return request.routeOptions.config?.credential;
}

/**
 * The caller of a request: the operator token if an Authorization header is sent, else the
 * session cookie, else nobody (a route naming `operator` or `session` reads only that one). A
 * wrong operator token is refused (401) rather than ignored.
 */
async function resolveCaller(request: FastifyRequest): Promise<Caller | undefined> {
  const credential = credentialOf(request);
  const header = request.headers.authorization;
  if (header !== undefined && credential !== 'session') {
    await authenticateOperator(request.deps, bearerToken(header));
    return { kind: 'operator', actor: 'operator' };
  }
  if (credential === 'operator') return undefined;
  const { deps } = request;
  return authenticateSession(deps, sessionCookies(deps.config.publicBaseUrl).read(request));
}

/** Refuses at start a route whose credential does not fit its access (a feed names its secret). */
function checkCredential(route: { method: unknown; url: string }, access: Access, credential: unknown): void {
  const named = credential === undefined ? undefined : (credential as CredentialKind);
  if (named !== undefined && !credentialKinds.includes(named)) {
    throw new Error(`route ${String(route.method)} ${route.url} names an unknown config.credential`);
  }
  const isFeed = named !== undefined && feedCredentials.has(named);
  if ((access === 'feed') !== isFeed) {
    throw new Error(
      `route ${String(route.method)} ${route.url}: a feed route names its secret in config.credential, and only a feed route does`,
    );
  }
}

/**
 * The request context, registered at the application's root: the route table, then per request
 * the caller, institution and access decision, a feed's secret, CSRF, and the admin audit.
 */
export function registerRequestContext(app: App): void {
  recordRouteAccess(app);
  app.addHook('onRequest', resolveAccess);
  registerFeedCredentials(app);
  app.addHook('preValidation', requireCsrf(app));
  registerAudit(app);
}

/** Fails closed at start: a route that forgets to say who may use it is a bug, not a default. */
function recordRouteAccess(app: App): void {
  const table: RouteAccess[] = [];
  app.decorate('routeAccess', table);
  app.addHook('onRoute', (route) => {
    let declared = route.config?.access;
    if (declared === undefined && pluginRoutePrefixes.some((prefix) => route.url.startsWith(prefix))) {
      declared = 'public';
      route.config = { ...route.config, access: declared };
    }
    if (declared === undefined || !accessLevels.includes(declared)) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no valid config.access`);
    }
    checkCredential(route, declared, route.config?.credential);
    for (const method of [route.method].flat()) table.push({ method, url: route.url, access: declared });
  });
}

/** The caller, the institution of a `:slug` path and the policy's decision (onRequest). */
async function resolveAccess(request: FastifyRequest): Promise<void> {
  const access = accessOf(request);
  // No route matched: the not-found answer of the surface, which needs no caller.
  if (access === undefined || anonymousAccess.has(access)) return;
  const caller = await resolveCaller(request);
  request.caller = caller;
  const slug = (request.params as { slug?: unknown } | undefined)?.slug;
  const institution =
    typeof slug === 'string' && access !== 'visitor'
      ? caller === undefined
        ? undefined
        : await requireInstitution(request.deps.db, slug)
      : undefined;
  authorize(caller, access, institution);
  request.institution = institution;
  // An archived institution is read-only, and closed to its students (docs/archiving.md).
  refuseWhileArchived({
    method: request.method,
    access,
    caller,
    institution,
    allowedWhileArchived: request.routeOptions.config?.whileArchived === true,
  });
}

/** The secrets of the feed routes: the metrics scrape token, a roster secret, a help-sync secret. */
function registerFeedCredentials(app: App): void {
  // The metrics scrape token (METRICS_TOKEN): the operator token, which can do everything, is
  // never needed (nor accepted) to read metrics. 404 while none is configured, 401 when wrong.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (credentialOf(request) !== 'scrape_token') return payload;
    const expected = request.deps.config.metricsTokenHash;
    if (!expected)
      throw new ApiError('not_found', { detail: 'metrics are off: set METRICS_TOKEN to read them here' });
    if (!isScrapeToken(request.headers.authorization, expected))
      throw new ApiError('unauthorized', { detail: 'send Authorization: Bearer <METRICS_TOKEN>' });
    return payload;
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    if (credentialOf(request) !== 'roster_secret') return payload;
    const caller = await authenticateRoster(request.deps, bearerToken(request.headers.authorization));
    request.feedCaller = { kind: 'roster_secret', caller };
    return payload;
  });

  app.addHook('preValidation', async (request) => {
    if (credentialOf(request) !== 'sync_secret') return;
    const body = request.body as { institution?: unknown } | null | undefined;
    const named = typeof body === 'object' && body !== null ? body.institution : undefined;
    const caller = await authenticateSync(request.deps.db, bearerToken(request.headers.authorization), named);
    request.feedCaller = { kind: 'sync_secret', caller };
  });
}

/** The admin audit: what a change acts on, read before it runs, and the entry written after it. */
function registerAudit(app: App): void {
  // The words naming what a change acts on are read before it runs: a deletion still names it.
  app.addHook('preHandler', async (request) => {
    if (SAFE_METHODS.has(request.method) || !request.caller || request.caller.kind === 'student') return;
    const route = request.routeOptions.url;
    const which = route ? subjectOfRoute(route) : undefined;
    if (!which) return;
    if ('field' in which) {
      const value = (request.body as Record<string, unknown> | null | undefined)?.[which.field];
      if (typeof value === 'string' && value.trim()) request.auditSubject = value.trim();
      return;
    }
    const id = (request.params as { id?: unknown } | undefined)?.id;
    if (request.institution && typeof id === 'string')
      request.auditSubject = await auditSubjectOf(request.deps.db, request.institution.id, which.kind, id);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!audited(request, reply)) return payload;
    await recordAdminChange(request.deps, {
      caller: request.caller as Exclude<Caller, { kind: 'student' }>,
      institutionId: request.institution?.id ?? null,
      action: `${request.method} ${request.routeOptions.url}`,
      target: request.url.split('?')[0],
      status: reply.statusCode,
      requestId: request.id,
      subject: request.auditSubject ?? null,
    }).catch((error) => request.log.error({ err: error }, 'admin audit write failed'));
    return payload;
  });
}

/** Whether a request is a change by a person or the operator that the admin audit records. */
function audited(request: FastifyRequest, reply: FastifyReply): boolean {
  if (SAFE_METHODS.has(request.method) || request.unchanged || reply.statusCode >= 400) return false;
  const caller = request.caller;
  if (!caller || caller.kind === 'student') return false;
  // Sign-out and the student pages are not administration.
  const access = accessOf(request);
  return access !== undefined && access !== 'visitor' && access !== 'student';
}

/** The caller of a request whose route requires one (set by the context before the handler). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('callerOf: the route does not require a caller');
  return request.caller;
}

/** The caller of a roster feed request (authenticated by the context before the body is parsed). */
export function rosterCallerOf(request: FastifyRequest): RosterCaller {
  const found = request.feedCaller;
  if (found?.kind !== 'roster_secret') throw new Error('rosterCallerOf: the route reads no roster secret');
  return found.caller;
}

/** The caller of a help-sync request (authenticated by the context before the schema). */
export function syncCallerOf(request: FastifyRequest): SyncCaller {
  const found = request.feedCaller;
  if (found?.kind !== 'sync_secret') throw new Error('syncCallerOf: the route reads no help-sync secret');
  return found.caller;
}

/** The institution named by the path of a request (resolved by the context before the handler). */
export function institutionOf(request: FastifyRequest): Institution {
  if (!request.institution) throw new Error('institutionOf: the route names no institution');
  return request.institution;
}
