// Files every page loads: the surfaces' own scripts and styles (./assets), and vendor scripts
// and styles served from node_modules. Nothing is loaded from another host.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fastifyStatic from '@fastify/static';
import type { App } from '../types.ts';
import { assetsDir } from './page-scope.ts';

export async function registerAssets(app: App): Promise<void> {
  await app.register(fastifyStatic, { root: assetsDir, prefix: '/assets/', index: false, maxAge: '1h' });
  vendorRoutes(app);
}

/** Vendor scripts and styles served from node_modules: nothing is loaded from another host. */
function vendorRoutes(app: App): void {
  const require = createRequire(import.meta.url);
  const files: Record<string, { path: string; type: string }> = {
    'htmx.min.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript' },
    'uPlot.iife.min.js': { path: require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript' },
    'uPlot.min.css': { path: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css' },
  };
  const loaded = Object.fromEntries(
    Object.entries(files).map(([name, file]) => [name, { body: readFileSync(file.path), type: file.type }]),
  );
  for (const [name, file] of Object.entries(loaded)) {
    app.get(
      `/assets/vendor/${name}`,
      { config: { access: 'public' }, schema: { hide: true } },
      async (_request, reply) =>
        reply
          .type(`${file.type}; charset=utf-8`)
          .header('cache-control', 'public, max-age=86400')
          .send(file.body),
    );
  }
}
