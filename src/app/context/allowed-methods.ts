// Which methods an address takes, for the answer to a request whose path exists but whose method
// does not: 405 with `Allow` (RFC 9110, 15.5.6), so a client that sent PUT where PATCH is meant
// learns that the address is right and which methods it takes, instead of a 404 saying nothing is
// there. Every route is recorded as it is added, so routes added later are covered too.
import type { FastifyInstance } from 'fastify';

interface RoutePattern {
  pattern: RegExp;
  methods: Set<string>;
}

/** A route path (`/admin/v1/institutions/:slug/people/:id`, `/assets/*`) as a regular expression. */
export function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Records every route of `app` (and of the scopes registered in it afterwards). */
export function recordRouteMethods(app: FastifyInstance): (path: string) => string[] {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const entry = routes.get(route.url) ?? { pattern: pathPattern(route.url), methods: new Set<string>() };
    for (const method of methods) entry.methods.add(method);
    if (entry.methods.has('GET')) entry.methods.add('HEAD');
    routes.set(route.url, entry);
  });
  return (path) => {
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    return [...allowed].sort();
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods routes take at a path (empty when no route has the path). */
    allowedMethods(path: string): string[];
  }
}

/** The methods the path takes when the request's own method is not one of them (a 405), else undefined. */
export function methodNotAllowed(app: FastifyInstance, method: string, url: string): string[] | undefined {
  const allowed = app.allowedMethods(url.split('?')[0]);
  return allowed.length > 0 && !allowed.includes(method) ? allowed : undefined;
}
