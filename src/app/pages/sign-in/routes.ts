// Sign-in pages: find your institution, go to its provider, come back with a session.
// GET /auth/sign-in, GET /auth/{slug}/sign-in, GET /auth/sign-in/operator, GET /auth/callback,
// the one-time operator link, and POST /auth/sign-out. Every failure renders a page with a
// stable code (and the right status); none of them sets a session.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { SignInFailure } from '../../../domain/people/sign-in.ts';
import type { Services } from '../../../services.ts';
import { storableTextPattern } from '../../api/schemas.ts';
import { toApiError } from '../../context/errors.ts';
import { requireCsrf, sessionCookies } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';

const FLOW_COOKIE = 'ssp_signin';

export function authRoutes(app: App, services: Services): void {
  const { signIn, identityProviders, institutions, sessions } = services;
  const cookies = sessionCookies(services.config.publicBaseUrl);
  const secure = services.config.publicBaseUrl.startsWith('https:');
  const hide = { hide: true };

  const failurePage = (
    reply: FastifyReply,
    failure: { code: string; message: string; status: number },
    again = '/auth/sign-in',
  ) =>
    reply
      .status(failure.status)
      .header('cache-control', 'no-store')
      .page('auth/error.eta', { title: 'Sign-in did not complete', narrow: true, ...failure, again });

  // Anything that goes wrong on these pages is a page, not a JSON body.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof SignInFailure) return failurePage(reply, error);
    const apiError = toApiError(error);
    if (apiError && apiError.status < 500) {
      return failurePage(reply, {
        code: apiError.code,
        message: String(apiError.extra.detail ?? 'The request could not be read.'),
        status: apiError.status,
      });
    }
    request.log.error({ err: error }, 'sign-in page failed');
    return failurePage(reply, {
      code: 'unavailable',
      message: 'Signing in is not possible at the moment. Try again in a minute.',
      status: 503,
    });
  });

  const startAt = async (reply: FastifyReply, institutionId: string | null, returnTo?: string) => {
    const { url, state } = await signIn.begin(institutionId, returnTo);
    reply.setCookie(FLOW_COOKIE, state, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/auth',
      maxAge: 600,
    });
    return reply.header('cache-control', 'no-store').redirect(url, 302);
  };

  const signedIn = (reply: FastifyReply, session: { token: string; expiresAt: Date }, to: string) => {
    cookies.set(reply, session.token, session.expiresAt);
    return reply.header('cache-control', 'no-store').redirect(to, 303);
  };

  app.get(
    '/auth/sign-in',
    {
      schema: {
        ...hide,
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 200, pattern: storableTextPattern })),
        }),
      },
    },
    async (request, reply) => {
      const q = request.query.q?.trim() ?? '';
      const [matches, operator] = await Promise.all([
        q ? identityProviders.findInstitutions(q) : Promise.resolve([]),
        identityProviders.forSignIn(null),
      ]);
      return reply.page('auth/sign-in.eta', {
        title: 'Sign in',
        narrow: true,
        q,
        matches,
        operatorSso: Boolean(operator),
      });
    },
  );

  app.get('/auth/sign-in/operator', { schema: hide }, async (_request, reply) => startAt(reply, null));

  app.get(
    '/auth/:slug/sign-in',
    {
      schema: {
        ...hide,
        params: Type.Object({ slug: Type.String({ maxLength: 100 }) }),
        querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 500 })) }),
      },
    },
    async (request, reply) => {
      const institution = await institutions.bySlugIfValid(request.params.slug);
      if (!institution) {
        throw new SignInFailure('institution_not_found', 'There is no institution at this address.', 404);
      }
      return startAt(reply, institution.id, request.query.return_to);
    },
  );

  app.get('/auth/callback', { schema: hide }, async (request, reply) => {
    const url = new URL(request.url, services.config.publicBaseUrl);
    const browserState = request.cookies[FLOW_COOKIE];
    reply.clearCookie(FLOW_COOKIE, { path: '/auth', httpOnly: true, sameSite: 'lax', secure });
    const done = await signIn.complete(url, browserState);
    return signedIn(reply, done, done.returnTo ?? (done.kind === 'student' ? '/app/' : '/console/'));
  });

  const LinkParams = Type.Object({ token: Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' }) });

  // A GET only shows a button: link previews and prefetchers must not spend a one-time link.
  app.get('/auth/operator-link/:token', { schema: { ...hide, params: LinkParams } }, async (request, reply) =>
    reply.header('cache-control', 'no-store').page('auth/operator-link.eta', {
      title: 'Operator sign-in',
      narrow: true,
      token: request.params.token,
    }),
  );

  app.post(
    '/auth/operator-link/:token',
    { schema: { ...hide, params: LinkParams } },
    async (request, reply) =>
      signedIn(reply, await signIn.useOperatorLink(request.params.token), '/console/'),
  );

  app.post(
    '/auth/sign-out',
    {
      schema: hide,
      preHandler: [
        async (request: FastifyRequest) => {
          request.caller = await sessions.authenticate(cookies.read(request));
        },
        requireCsrf(app),
      ],
    },
    async (request, reply) => {
      if (request.caller?.sessionId) await sessions.end(request.caller.sessionId);
      cookies.clear(reply);
      return reply
        .header('cache-control', 'no-store')
        .page('auth/signed-out.eta', { title: 'Signed out', narrow: true });
    },
  );
}
