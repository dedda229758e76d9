// Unknown form fields are refused on every console form, as the admin API refuses unknown body
// fields (src/app/api/body-fields.ts): a misspelt field must not be dropped silently. Each POST
// route of the console names the fields its form posts in `config.formFields` (a name, or a
// pattern for numbered rows such as `name_0`); a POST route that names none fails when the
// console starts, so a form added later is covered too. The framework's own fields (`_csrf`,
// `_idempotency_key`, `_method`) are always allowed. An unknown field is the console's error page
// (400), in words; its code `unknown_field` is only under Details.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../errors.ts';
import { closestName } from '../../../lib/suggest.ts';
import type { App } from '../../types.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The fields a console form posts (names, or patterns for numbered rows). */
    formFields?: readonly (string | RegExp)[];
  }
}

/** Fields every console form may carry, whatever the form. */
export const frameworkFields: readonly string[] = ['_csrf', '_idempotency_key', '_method'];

/** The first field of a posted form that the route does not take, with the closest name it does. */
export function unknownFormField(
  body: unknown,
  fields: readonly (string | RegExp)[],
): { field: string; suggestion?: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const known = (name: string) =>
    frameworkFields.includes(name) || fields.some((f) => (typeof f === 'string' ? f === name : f.test(name)));
  const field = Object.keys(body).find((name) => !known(name));
  if (field === undefined) return undefined;
  const names = fields.filter((f): f is string => typeof f === 'string');
  const suggestion = names.length > 0 ? closestName(field, names) : undefined;
  return suggestion === undefined ? { field } : { field, suggestion };
}

/** The sentence the error page shows. */
export function unknownFieldMessage(unknown: { field: string; suggestion?: string }): string {
  const name = unknown.field.length > 100 ? `${unknown.field.slice(0, 97)}...` : unknown.field;
  const hint = unknown.suggestion ? ` (did you mean ${unknown.suggestion}?)` : '';
  return `This form had a field the service does not know: ${name}${hint}. Go back to the page and use its own form.`;
}

/** Adds the check to every POST route of the console scope; routes added after this call. */
export function refuseUnknownFormFields(scope: App): void {
  scope.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    if (!route.config?.formFields)
      throw new Error(`console route POST ${route.url} does not name its form fields (config.formFields)`);
  });
  // A preHandler after the console's context: a caller refused access learns nothing of the fields.
  scope.addHook('preHandler', async (request: FastifyRequest) => {
    const fields = request.routeOptions.config?.formFields;
    if (request.method !== 'POST' || fields === undefined) return;
    const unknown = unknownFormField(request.body, fields);
    if (!unknown) return;
    throw new ApiError('unknown_field', {
      field: unknown.field,
      ...(unknown.suggestion ? { suggestion: unknown.suggestion } : {}),
      detail: unknownFieldMessage(unknown),
    });
  });
}
