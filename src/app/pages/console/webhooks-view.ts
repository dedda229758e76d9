// What the webhook pages show, built from the webhook domain's own types by pure functions: the
// endpoints with the add form, an endpoint with its delivery log (each delivery with all its
// attempts), the add form's values as the domain takes them, and the replay form's time.

import type { NewEndpointBody, WebhookDelivery, WebhookEndpoint } from '../../../domain/webhooks/schemas.ts';
import { EVENT_TYPES } from '../../../domain/webhooks/schemas.ts';
import { instantOfWallClock } from '../../../lib/time-zones.ts';
import { list, text, when } from './forms.ts';
import type { Listing } from './listing.ts';

/** The add form's values as posted (shown again with the form when refused). */
export interface NewEndpointValues {
  url: string;
  description: string;
  event_types: string[];
}

export function newEndpointValues(form: unknown): NewEndpointValues {
  return {
    url: text(form, 'url'),
    description: text(form, 'description'),
    event_types: list(form, 'event_types'),
  };
}

/**
 * What the add form asks the domain for: an empty description is none; an empty URL is left out,
 * so the schema check names it with the other fields' problems rather than the URL guard after.
 */
export function newEndpointInput(values: NewEndpointValues): NewEndpointBody {
  return {
    ...(values.url ? { url: values.url } : {}),
    event_types: values.event_types as NewEndpointBody['event_types'],
    ...(values.description ? { description: values.description } : {}),
  } as NewEndpointBody;
}

/** The webhooks page: the institution's endpoints and the add form. */
export function endpointsView(endpoints: readonly WebhookEndpoint[]) {
  return {
    title: 'Webhooks',
    endpoints,
    eventTypes: EVENT_TYPES,
    values: { url: '', description: '', event_types: [] } as NewEndpointValues,
    errors: {} as Record<string, string>,
    when,
  };
}

/** An endpoint's page: its state, its event types ticked, and a page of its delivery log. */
export function endpointView(endpoint: WebhookEndpoint, log: Listing<WebhookDelivery>) {
  return {
    title: `Webhook endpoint ${endpoint.url}`,
    endpoint,
    deliveries: log.items.map((delivery) => ({ ...delivery, tries: delivery.attempt_log ?? [] })),
    log,
    eventTypes: EVENT_TYPES,
    selected: endpoint.event_types,
    errors: {} as Record<string, string>,
    when,
  };
}

/**
 * A `datetime-local` value, read in the institution's zone (the zone every time in the console is
 * shown in), or an ISO time as it is.
 */
export function sinceOf(value: string, zone: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return instantOfWallClock(value, zone).toISOString();
  return value;
}

/** What a shown signing secret's notice says: it is kept encrypted, so it can be shown again. */
export const SHOW_AGAIN =
  'It is stored encrypted because deliveries are signed with it: an admin with Manage integrations can show it again from the endpoint page, and each time is recorded in the audit.';
