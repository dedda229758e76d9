// Unknown body fields are refused (400 unknown_field, naming the field and the closest known one:
// "did you mean priority?"), on every route of the JSON API at once, as the feeds always did: a
// misspelt `prority` must not create a normal-priority help request, nor an ignored `timezone`
// leave an institution on UTC (docs/versioning.md). The fields a route takes are the top-level
// properties of its body schema, read once when the route is added, so a route added later is
// covered without doing anything. The feeds keep their own check (their codes, their order).
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { refuseUnknownFields } from '../../lib/unknown-fields.ts';
import type { App } from '../types.ts';
import { parameterNames } from './query-parameters.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The top-level body fields the route takes (undefined: any, or the route checks them itself). */
    bodyFields?: readonly string[];
  }
}

function knownFields(route: { schema?: { body?: unknown }; config?: { access?: string } }) {
  if (route.config?.access === 'feed') return undefined;
  const names = parameterNames(route.schema?.body as TSchema | undefined);
  return names === undefined ? undefined : [...names];
}

/** The body without the CSRF token, which any cookie-authenticated write may carry as a field. */
function withoutControls(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('_csrf' in body)) return body;
  const { _csrf: _token, ...rest } = body as Record<string, unknown>;
  return rest;
}

export function refuseUnknownBodyFields(scope: App): void {
  scope.addHook('onRoute', (route) => {
    const fields = knownFields(route as Parameters<typeof knownFields>[0]);
    route.config = { ...route.config, bodyFields: fields };
  });
  // After the request context: a caller refused access learns nothing about the fields.
  scope.addHook('preValidation', async (request: FastifyRequest) => {
    const known = request.routeOptions.config?.bodyFields;
    if (known === undefined) return;
    refuseUnknownFields(withoutControls(request.body), known);
  });
}
