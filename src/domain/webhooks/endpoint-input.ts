// What an endpoint's settings may hold, judged field by field: event types, description, enabled,
// and the reason an administrator gives when disabling one. Pure; the URL's check, which resolves
// the host, is `checkedUrl` in ./endpoints.ts. The admin API's schemas check the same limits first;
// these rules hold for every caller (the CLI, the console, tests) whatever they send.
import { ApiError } from '../../errors.ts';
import { EVENT_TYPES, MAX_DESCRIPTION, MAX_DISABLE_REASON } from './schemas.ts';

/** The event types an endpoint receives: known types, each once, sorted (empty: every type). */
export function validTypes(types: unknown): string[] {
  if (!Array.isArray(types) || types.length > EVENT_TYPES.length * 2)
    throw new ApiError('invalid_field', {
      field: 'event_types',
      detail: 'event_types must be an array of event types',
    });
  for (const type of types) {
    if (typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type))
      throw new ApiError('invalid_field', {
        field: 'event_types',
        detail: `unknown event type ${JSON.stringify(type)}; known: ${EVENT_TYPES.join(', ')}`,
      });
  }
  return [...new Set(types as string[])].sort();
}

/** A description, or null for none. */
export function validDescription(description: unknown): string | null {
  if (description === null || description === undefined) return null;
  if (typeof description !== 'string' || description.length > MAX_DESCRIPTION)
    throw new ApiError('invalid_field', {
      field: 'description',
      detail: `description: at most ${MAX_DESCRIPTION} characters`,
    });
  return description;
}

/** Whether the endpoint is enabled; undefined when not given. */
export function validEnabled(enabled: unknown): boolean | undefined {
  if (enabled === undefined || typeof enabled === 'boolean') return enabled;
  throw new ApiError('invalid_field', { field: 'enabled', detail: 'enabled must be true or false' });
}

/** The reason recorded when an administrator disables an endpoint, with what they gave, if anything. */
export function disabledReason(reason: unknown): string {
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_DISABLE_REASON))
    throw new ApiError('invalid_field', {
      field: 'reason',
      detail: `reason: a string of at most ${MAX_DISABLE_REASON} characters`,
    });
  return reason ? `disabled by an administrator: ${reason}` : 'disabled by an administrator';
}
