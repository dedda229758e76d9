// One factory for every HTML surface (the sign-in pages, the console, the student pages): each is
// a scope with its own layout, its own frame (what every page of it shows: navigation, who is
// signed in, the CSRF token) and its own answer to a refusal (a redirect to sign-in or to the
// other surface, or an error page), while rendering, the helpers templates share, caching rules
// and the error and not-found pages are written once, here.
//
// Pages render with `reply.render(template, data, status)`: the surface's frame, then the page's
// data. Nothing a page shows is cached by the browser or a proxy (no-store): pages carry personal
// data and CSRF tokens. A failure is a page that says what happened in words, with its code and
// the request id under "Details" for support; never a stack trace, and never a 5xx for bad input.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.ts';
import type { ApiError } from '../../errors.ts';
import { methodNotAllowed } from '../context/allowed-methods.ts';
import { toApiError } from '../context/errors.ts';
import type { App } from '../types.ts';
import { withErrorSummary } from './error-summary.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const viewsDir = path.join(here, 'views');
export const assetsDir = path.join(here, 'assets');

declare module 'fastify' {
  interface FastifyReply {
    /** Renders a page of the surface inside its layout (set by @fastify/view). */
    page(template: string, data: Record<string, unknown>): FastifyReply;
    /** Renders a page with the surface's frame, no-store, and the given status. */
    render(template: string, data: Record<string, unknown>, status?: number): FastifyReply;
  }
}

/** What an error page shows. */
export interface ErrorPage {
  status: number;
  code: string;
  message: string;
}

export interface Surface {
  /** URL prefix of the surface's pages ('' for pages at the root). */
  prefix: string;
  /** The layout template every page of the surface is rendered in. */
  layout: string;
  /** The template of the surface's error and not-found pages. */
  errorTemplate: string;
  /** What the surface says when a page fails on the server's side. */
  failure: ErrorPage;
  /** A failure of the surface's own kind (a sign-in failure, say), as the page that shows it. */
  recognise?(error: unknown): ErrorPage | undefined;
  /** What every page of the surface shows besides its own data. */
  frame(request: FastifyRequest, reply: FastifyReply): Record<string, unknown>;
  /**
   * Helpers every template of the surface uses, registered once and never overridden by a page's
   * own data (the console's `when`, which writes every time in the institution's zone).
   */
  helpers?(request: FastifyRequest): Record<string, unknown>;
  /**
   * Where a refused request is sent instead of an error page (sign-in for a visitor without a
   * session, the student pages for a student who opened the console, ...), if anywhere.
   */
  redirect?(request: FastifyRequest, error: ApiError): string | undefined;
  /** A last change to a page as rendered (the console takes out an archived institution's forms). */
  transform?(request: FastifyRequest, html: string): string;
  /** The error page's data, for surfaces that word failures their own way. */
  errorData?(request: FastifyRequest, failure: ErrorPage): Record<string, unknown>;
}

const titles: Record<number, string> = { 404: 'Not found', 403: 'Not allowed' };

/** The template engine of every surface, created once (templates are cached when not debugging). */
export function pageEngine({ config }: Pick<Deps, 'config'>): Eta {
  return new Eta({ views: viewsDir, cache: config.logLevel !== 'debug', autoEscape: true });
}

/** Registers a surface on a scope of its own and lets `routes` add its pages to it. */
export async function registerSurface(
  parent: App,
  engine: Eta,
  surface: Surface,
  routes: (scope: App) => void | Promise<void>,
): Promise<void> {
  await parent.register(
    async (scope) => {
      const pages = scope as App;
      await pages.register(view, {
        engine: { eta: engine },
        root: viewsDir,
        layout: surface.layout,
        propertyName: 'page',
      });
      registerRender(pages, surface);
      registerFailurePages(pages, surface);
      await routes(pages);
    },
    { prefix: surface.prefix },
  );
}

/** `reply.render` in the surface's frame, and the page as sent (its error summary, the surface's last change). */
function registerRender(pages: App, surface: Surface): void {
  pages.decorateReply(
    'render',
    function render(this: FastifyReply, template: string, data: Record<string, unknown>, status = 200) {
      return this.status(status)
        .header('cache-control', 'no-store')
        .page(template, {
          ...surface.frame(this.request, this),
          ...data,
          ...surface.helpers?.(this.request),
        });
    },
  );

  // A page with problems next to its fields lists them at its top (src/app/pages/error-summary.ts).
  pages.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html'))
      return payload;
    const page = withErrorSummary(payload);
    return surface.transform ? surface.transform(request, page) : page;
  });
}

/** The surface's error page for a failure, a path that names nothing and a wrong method. */
function registerFailurePages(pages: App, surface: Surface): void {
  const errorPage = (request: FastifyRequest, reply: FastifyReply, failure: ErrorPage) =>
    reply.render(
      surface.errorTemplate,
      {
        title: titles[failure.status] ?? 'Something went wrong',
        ...failure,
        // The domain's details start in lower case (they follow a code in the API's answer).
        message: failure.message.charAt(0).toUpperCase() + failure.message.slice(1),
        requestId: request.id,
        ...surface.errorData?.(request, failure),
      },
      failure.status,
    );

  pages.setErrorHandler((error, request, reply) => {
    const own = surface.recognise?.(error);
    if (own) return errorPage(request, reply, own);
    const known = toApiError(error);
    // A path part that cannot name anything (an id that is not an id) is a page that does
    // not exist, said in words, never a schema path.
    if (
      known?.code === 'invalid_field' &&
      (error as { validationContext?: string }).validationContext === 'params'
    )
      return errorPage(request, reply, {
        status: 404,
        code: 'not_found',
        message: 'There is no page at this address.',
      });
    if (known && known.status < 500) {
      const to = surface.redirect?.(request, known);
      if (to) return reply.header('cache-control', 'no-store').redirect(to, 303);
      const message = readableDetail(known, error);
      return errorPage(request, reply, { status: known.status, code: known.code, message });
    }
    if (!known) {
      request.log.error({ err: error }, 'page failed');
      return errorPage(request, reply, surface.failure);
    }
    return errorPage(request, reply, { ...surface.failure, status: known.status, code: known.code });
  });
  pages.setNotFoundHandler(async (request, reply) => {
    const allowed = methodNotAllowed(pages, request.method, request.url);
    if (allowed) {
      reply.header('allow', allowed.join(', '));
      return errorPage(request, reply, {
        status: 405,
        code: 'method_not_allowed',
        message: 'This page cannot be used that way. Go back and use the page’s own links and forms.',
      });
    }
    return errorPage(request, reply, {
      status: 404,
      code: 'not_found',
      message: 'There is no page at this address.',
    });
  });
}

/** The URL a visitor without a session is sent to, coming back to this page after signing in. */
export function signInFor(request: FastifyRequest): string {
  const slug = (request.params as { slug?: unknown } | undefined)?.slug;
  const back = encodeURIComponent(request.url.slice(0, 400));
  return typeof slug === 'string' && /^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)
    ? `/auth/${slug}/sign-in?return_to=${back}`
    : `/auth/sign-in?return_to=${back}`;
}

/**
 * What a page says of a refusal: the domain's detail, but never a schema path. A query or form
 * value a route's schema refused (`querystring.q must NOT have more than 1000 characters`) is told
 * in words. Forms check their values first and say which field is at fault; this is the net under
 * them (an address typed or edited by hand, a form posted by something else than the page).
 */
export function readableDetail(known: { extra: Record<string, unknown> }, error: unknown): string {
  const validation = (error as { validation?: unknown; validationContext?: string } | null) ?? {};
  if (validation.validation) {
    return validation.validationContext === 'querystring'
      ? 'This address asks for something the page cannot read: a value in it is too long or not of the kind the page takes. Go back and use the page’s own links and forms.'
      : 'What was sent could not be read: a value is too long or not of the kind the form takes. Go back and check what you typed.';
  }
  return String(known.extra.detail ?? 'The request could not be read.');
}
