// The HTML pages: the sign-in pages, the console and the student pages, each a surface of its own
// (page-scope.ts) under one scope that sets what every page shares: a strict Content-Security-
// Policy (no inline script or style, nothing from another host) and the usual security headers,
// form posts (application/x-www-form-urlencoded, accepted here only: the JSON API keeps refusing
// them), and the assets.
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { Deps } from '../../domain/deps.ts';
import type { App } from '../types.ts';
import { registerAssets } from './assets.ts';
import { registerConsole } from './console/index.ts';
import { pageEngine } from './page-scope.ts';
import { registerSignInPages } from './sign-in/routes.ts';
import { registerStudentPages } from './student/routes.ts';

export async function registerPages(app: App, deps: Pick<Deps, 'config'>): Promise<void> {
  await app.register(async (scope) => {
    const pages = scope as App;
    await pages.register(helmet, {
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
    await pages.register(formbody, { bodyLimit: 64 * 1024 });
    await registerAssets(pages);
    const engine = pageEngine(deps);
    await registerSignInPages(pages, engine, deps);
    await registerConsole(pages, engine);
    await registerStudentPages(pages, engine);
  });
}
