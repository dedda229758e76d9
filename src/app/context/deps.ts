// The process's dependencies on every request: a handler passes `request.deps` (or the part a
// function picks: `Pick<Deps, 'db' | 'clock'>`) to the area's functions it imports.
import type { Deps } from '../../domain/deps.ts';
import type { App } from '../types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The database, clock, configuration, keyring, outbound policy and OIDC client of the process. */
    readonly deps: Deps;
  }
}

export function registerDeps(app: App, deps: Deps): void {
  app.decorateRequest('deps', {
    getter: () => deps,
  });
}
