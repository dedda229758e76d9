// The session cookie and CSRF protection of the console, the student pages and every admin
// API request made with a cookie.
//
// The cookie is HttpOnly, SameSite=Lax, Path=/ and Secure whenever PUBLIC_BASE_URL is https
// (then named with the __Host- prefix, which browsers only accept from a secure origin with no
// Domain). CSRF: @fastify/csrf-protection's double-submit secret in its own cookie, with the
// session id folded into each token (so a token from one session is worthless in another).
// Pages put the token in forms (`_csrf`), scripts in the `x-csrf-token` header; `GET
// /admin/v1/me` hands it to clients of the admin API.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.ts';
import type { App } from '../types.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SessionCookies {
  name: string;
  read(request: FastifyRequest): string | undefined;
  set(reply: FastifyReply, token: string, expiresAt: Date): void;
  clear(reply: FastifyReply): void;
}

export function sessionCookies(publicBaseUrl: string): SessionCookies {
  const secure = publicBaseUrl.startsWith('https:');
  const name = secure ? '__Host-ssp_session' : 'ssp_session';
  const options = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure };
  return {
    name,
    read: (request) => request.cookies?.[name] || undefined,
    set: (reply, token, expiresAt) => void reply.setCookie(name, token, { ...options, expires: expiresAt }),
    clear: (reply) => void reply.clearCookie(name, options),
  };
}

export async function registerSessionCookies(
  app: App,
  { config, keyring }: Pick<Deps, 'config' | 'keyring'>,
): Promise<void> {
  const secure = config.publicBaseUrl.startsWith('https:');
  await app.register(cookie);
  await app.register(csrf, {
    cookieKey: secure ? '__Host-ssp_csrf' : 'ssp_csrf',
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure },
    getUserInfo: (request) => request.caller?.sessionId ?? '',
    csrfOpts: { hmacKey: keyring.derive('csrf') },
  });
}

/** A CSRF token for the caller's session (sets the CSRF cookie if the browser has none). */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const sessionId = request.caller?.sessionId;
  return sessionId ? reply.generateCsrf({ userInfo: sessionId }) : undefined;
}

/**
 * Refuses a state-changing request authenticated by a session cookie unless it carries a valid
 * token. Requests authenticated by a bearer token carry no ambient credential and need none.
 */
export function requireCsrf(app: App) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (SAFE_METHODS.has(request.method) || !request.caller?.sessionId) return done();
    app.csrfProtection(request, reply, done);
  };
}
