// A request body a route declares optional (`body: Type.Optional(Schema)`, e.g. issuing a roster
// secret with or without an overlap, a OneRoster pull with or without a mode): a POST sent with
// no body at all is read as `{}`, so the schema's defaults apply, instead of failing validation
// as "body must be object". A body that is sent is validated as it is.
import type { App } from '../types.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body schema is optional: an absent body is read as {}. */
    optionalBody?: boolean;
  }
}

export function acceptOmittedBodies(scope: App): void {
  scope.addHook('onRoute', (route) => {
    const body = route.schema?.body as { '~optional'?: boolean } | undefined;
    if (body?.['~optional'] === true) route.config = { ...route.config, optionalBody: true };
  });
  scope.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.config?.optionalBody) request.body = {};
  });
}
