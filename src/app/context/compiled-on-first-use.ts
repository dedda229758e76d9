// Route schemas compiled when a route is first used, not as it is registered. Fastify compiles
// every route's request validator (TypeBox) and response serializer (fast-json-stringify) as the
// routes are added: generated code, its source text and the closures around it, some 10 MB of
// the server's heap held from the start although an idle server, or one that is only pushed
// to, uses a handful of its routes (docs/performance.md, "Lean by default"). Compiled on first
// use, each costs its route's first request a few milliseconds instead. The compilers are
// Fastify's own (TypeBox's for validation, as the type provider has it, and Fastify's default
// serializer compiler with the same options and shared schemas), so what is compiled is the same.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifyServerOptions } from 'fastify';

/** A compiler whose functions compile their schema on their first call and keep the result. */
function onFirstUse<Route, Compiled extends (...args: never[]) => unknown>(
  compile: (route: Route) => Compiled,
): (route: Route) => Compiled {
  return (route) => {
    let compiled: Compiled | undefined;
    return ((...args: Parameters<Compiled>) => {
      compiled ??= compile(route);
      return compiled(...args);
    }) as Compiled;
  };
}

/** The request validator compiler (`app.setValidatorCompiler`): TypeBox's, on first use. */
export const validatorOnFirstUse = onFirstUse(TypeBoxValidatorCompiler);

/** Fastify's `schemaController` option: its default response serializer compiler, on first use. */
export function serializersOnFirstUse(): NonNullable<FastifyServerOptions['schemaController']> {
  const buildSerializer = SerializerSelector();
  return {
    compilersFactory: {
      buildSerializer: (externalSchemas, options) => onFirstUse(buildSerializer(externalSchemas, options)),
    },
  };
}
