// Sign-in pages: find your institution, go to its provider, come back with a session.
// GET /auth/sign-in, GET /auth/{slug}/sign-in, GET /auth/sign-in/operator, GET /auth/callback,
// the one-time operator link, and POST /auth/sign-out. Every failure renders a page with a
// stable code (and the right status); none of them sets a session.
import type { Eta } from 'eta';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../../domain/deps.ts';
import { institutionBySlug } from '../../../domain/institutions/institutions.ts';
import { findInstitutions, providerForSignIn } from '../../../domain/people/identity-providers.ts';
import { endSession } from '../../../domain/people/sessions.ts';
import {
  beginSignIn,
  completeSignIn,
  SignInFailure,
  useOperatorLink,
} from '../../../domain/people/sign-in.ts';
import { perMinute } from '../../context/rate-limit.ts';
import { sessionCookies } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { registerSurface, type Surface } from '../page-scope.ts';
import { signInSearch } from './search.ts';

const FLOW_COOKIE = 'ssp_signin';

/** The sign-in pages as a page surface (src/app/pages/page-scope.ts). */
const signInSurface: Surface = {
  prefix: '/auth',
  layout: 'layout.eta',
  errorTemplate: 'auth/error.eta',
  failure: {
    status: 503,
    code: 'unavailable',
    message: 'Signing in is not possible at the moment. Try again in a minute.',
  },
  frame: () => ({ narrow: true }),
  // The fields, not the Error itself: an Error's message is not enumerable, so spreading the
  // error into the page's data would lose it.
  recognise: (error) =>
    error instanceof SignInFailure
      ? { status: error.status, code: error.code, message: error.message }
      : undefined,
  errorData: () => ({ title: 'Sign-in did not complete', again: '/auth/sign-in' }),
};

/** The sign-in rate limit is the process's configuration, read once as the pages are registered. */
export async function registerSignInPages(
  parent: App,
  engine: Eta,
  deps: Pick<Deps, 'config'>,
): Promise<void> {
  await registerSurface(parent, engine, signInSurface, (app) => signInRoutes(app, deps));
}

const hide = { hide: true };
const open = { access: 'public' } as const;

/** Whether the cookies are Secure (PUBLIC_BASE_URL is https). */
const secureFor = (reply: FastifyReply) => reply.request.deps.config.publicBaseUrl.startsWith('https:');

/** Starts a sign-in at the provider, the flow's state kept in the browser for the callback. */
async function startAt(reply: FastifyReply, institutionId: string | null, returnTo?: string) {
  const { url, state } = await beginSignIn(reply.request.deps, institutionId, returnTo, reply.request.ip);
  reply.setCookie(FLOW_COOKIE, state, {
    httpOnly: true,
    sameSite: 'lax',
    secure: secureFor(reply),
    path: '/auth',
    maxAge: 600,
  });
  return reply.header('cache-control', 'no-store').redirect(url, 302);
}

/** The session's cookie set, and on to the page signed in to. */
function signedIn(reply: FastifyReply, session: { token: string; expiresAt: Date }, to: string) {
  sessionCookies(reply.request.deps.config.publicBaseUrl).set(reply, session.token, session.expiresAt);
  return reply.header('cache-control', 'no-store').redirect(to, 303);
}

function signInRoutes(app: App, deps: Pick<Deps, 'config'>): void {
  searchAndStartRoutes(app, deps);
  callbackRoutes(app);
}

/** Finding one's institution, and starting a sign-in to it (or to the platform's provider). */
function searchAndStartRoutes(app: App, deps: Pick<Deps, 'config'>): void {
  // Starting a sign-in needs no credential and writes a row: limited per client (request.ip,
  // TRUST_PROXY honoured; shared through Redis when configured); 429 is a page with Retry-After.
  const start = {
    access: 'public',
    ...perMinute(deps.config.signInRateLimitPerMinute, 'sign-in'),
  } as const;

  app.get(
    '/sign-in',
    {
      config: open,
      schema: {
        ...hide,
        // Loose on purpose: the search is checked by signInSearch, refused in a sentence.
        querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 4000 })) }),
      },
    },
    async (request, reply) => {
      const { q, problem } = signInSearch(request.query.q);
      const [matches, operator] = await Promise.all([
        q && !problem ? findInstitutions(request.deps.db, q) : Promise.resolve([]),
        providerForSignIn(request.deps, null),
      ]);
      return reply.render(
        'auth/sign-in.eta',
        { title: 'Sign in', q, problem, matches, operatorSso: Boolean(operator) },
        problem ? 400 : 200,
      );
    },
  );

  app.get('/sign-in/operator', { config: start, schema: hide }, async (_request, reply) =>
    startAt(reply, null),
  );

  app.get(
    '/:slug/sign-in',
    {
      config: start,
      schema: {
        ...hide,
        params: Type.Object({ slug: Type.String({ maxLength: 100 }) }),
        querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 500 })) }),
      },
    },
    async (request, reply) => {
      const institution = await institutionBySlug(request.deps.db, request.params.slug);
      if (!institution) {
        throw new SignInFailure('institution_not_found', 'There is no institution at this address.', 404);
      }
      return startAt(reply, institution.id, request.query.return_to);
    },
  );
}

/** The provider's callback, the one-time operator link, and signing out. */
function callbackRoutes(app: App): void {
  app.get('/callback', { config: open, schema: hide }, async (request, reply) => {
    const url = new URL(request.url, request.deps.config.publicBaseUrl);
    const browserState = request.cookies[FLOW_COOKIE];
    const secure = secureFor(reply);
    reply.clearCookie(FLOW_COOKIE, { path: '/auth', httpOnly: true, sameSite: 'lax', secure });
    const done = await completeSignIn(request.deps, url, browserState);
    return signedIn(reply, done, done.returnTo ?? (done.kind === 'student' ? '/app/' : '/console/'));
  });

  const LinkParams = Type.Object({ token: Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' }) });

  // A GET only shows a button: link previews and prefetchers must not spend a one-time link.
  app.get(
    '/operator-link/:token',
    { config: open, schema: { ...hide, params: LinkParams } },
    async (request, reply) =>
      reply.render('auth/operator-link.eta', { title: 'Operator sign-in', token: request.params.token }),
  );

  app.post(
    '/operator-link/:token',
    { config: open, schema: { ...hide, params: LinkParams } },
    async (request, reply) =>
      signedIn(reply, await useOperatorLink(request.deps, request.params.token), '/console/'),
  );

  // The session is read when there is one (and its CSRF token checked by the request context);
  // signing out without one still clears the cookie and says so.
  app.post('/sign-out', { config: { access: 'visitor' }, schema: hide }, async (request, reply) => {
    if (request.caller?.sessionId) await endSession(request.deps, request.caller.sessionId);
    sessionCookies(request.deps.config.publicBaseUrl).clear(reply);
    return reply.render('auth/signed-out.eta', { title: 'Signed out' });
  });
}
