// Unknown query parameters are refused (400 unknown_parameter, naming the parameter), as unknown
// body fields are: a client written against another version of an endpoint learns at once that a
// parameter it sends means nothing here, instead of being answered as if it did. `offset`, which
// the listings took before they paged by cursor, is told where paging went. The parameters an
// endpoint takes are those of its querystring schema, read once per route when it is added.
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { ApiError } from '../../errors.ts';
import type { App } from '../types.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The query parameters the route takes (undefined: any). */
    queryParameters?: ReadonlySet<string>;
  }
}

/** The property names a querystring schema defines; undefined when it takes any. */
export function parameterNames(schema: TSchema | undefined): Set<string> | undefined {
  if (schema === undefined) return new Set();
  const s = schema as {
    properties?: Record<string, unknown>;
    allOf?: TSchema[];
    anyOf?: TSchema[];
    oneOf?: TSchema[];
    additionalProperties?: unknown;
    patternProperties?: unknown;
  };
  if (
    s.patternProperties !== undefined ||
    (s.additionalProperties !== undefined && s.additionalProperties !== false)
  )
    return undefined;
  const names = new Set(Object.keys(s.properties ?? {}));
  for (const part of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    const inner = parameterNames(part);
    if (inner === undefined) return undefined;
    for (const name of inner) names.add(name);
  }
  return names;
}

function unknownParameter(request: FastifyRequest): string | undefined {
  // Liveness probes and the like: a load balancer's extra parameter is not worth a failed check.
  if (request.routeOptions.config?.access === 'public') return undefined;
  const allowed = request.routeOptions.config?.queryParameters;
  if (allowed === undefined) return undefined;
  const query = request.query as Record<string, unknown> | undefined;
  return Object.keys(query ?? {}).find((name) => !allowed.has(name));
}

export function refuseUnknownParameters(scope: App): void {
  scope.addHook('onRoute', (route) => {
    const names = parameterNames(route.schema?.querystring as TSchema | undefined);
    route.config = { ...route.config, queryParameters: names };
  });
  // After the request context and a feed's own secret check: a caller refused access learns
  // nothing about the parameters.
  scope.addHook('preValidation', async (request) => {
    const name = unknownParameter(request);
    if (name === undefined) return;
    throw new ApiError('unknown_parameter', {
      field: name,
      detail:
        name === 'offset'
          ? 'offset is not a parameter of this listing: it pages by cursor (send the next_cursor of the previous page as cursor)'
          : `${name} is not a query parameter of this endpoint`,
    });
  });
}
