// The scope of every HTML page (sign-in now; the console and the student pages build on it):
// server-rendered Eta templates with automatic escaping, the console's own assets served from
// this service (nothing from other hosts), a strict Content-Security-Policy (no inline script
// or style) and the usual security headers. Form posts (application/x-www-form-urlencoded) are
// accepted here only: the JSON API keeps refusing them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { App } from '../types.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const viewsDir = path.join(here, 'views');
export const assetsDir = path.join(here, 'assets');

/** Registers the page machinery on a scope; the scope's routes then render with `reply.page`. */
export async function registerPageScope(scope: App, options: { production: boolean }): Promise<void> {
  await scope.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // Sign-in redirects to the institution's provider; the referrer must not carry our URLs.
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
  });
  await scope.register(formbody, { bodyLimit: 64 * 1024 });
  await scope.register(view, {
    engine: { eta: new Eta({ views: viewsDir, cache: options.production, autoEscape: true }) },
    root: viewsDir,
    layout: 'layout.eta',
    propertyName: 'page',
  });
  await scope.register(fastifyStatic, { root: assetsDir, prefix: '/assets/', index: false, maxAge: '1h' });
}

declare module 'fastify' {
  interface FastifyReply {
    page(template: string, data: Record<string, unknown>): FastifyReply;
  }
}
