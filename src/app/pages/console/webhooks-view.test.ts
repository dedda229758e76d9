import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_TYPES, type WebhookDelivery, type WebhookEndpoint } from '../../../domain/webhooks/schemas.ts';
import {
  endpointsView,
  endpointView,
  newEndpointInput,
  newEndpointValues,
  sinceOf,
} from './webhooks-view.ts';

const endpoint: WebhookEndpoint = {
  id: '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d',
  institution_id: 'i',
  url: 'https://hooks.example.edu/ssp',
  description: null,
  event_types: ['help_request.crisis'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: new Date('2026-03-04T10:00:00Z'),
  updated_at: new Date('2026-03-04T10:00:00Z'),
};

const delivery = (id: string, attempts?: WebhookDelivery['attempt_log']): WebhookDelivery => ({
  id,
  event_id: id,
  event_type: 'help_request.created',
  state: 'failed',
  attempts: attempts?.length ?? 0,
  last_status: null,
  last_error: null,
  last_attempt_at: null,
  next_attempt_at: null,
  created_at: new Date('2026-03-04T10:00:00Z'),
  completed_at: null,
  attempt_log: attempts,
});

test('the add form: trimmed values, an empty description is none, the event types as ticked', () => {
  const values = newEndpointValues({
    url: ' https://hooks.example.edu/ssp ',
    description: '  ',
    event_types: 'help_request.crisis',
  });
  assert.deepEqual(values, {
    url: 'https://hooks.example.edu/ssp',
    description: '',
    event_types: ['help_request.crisis'],
  });
  assert.deepEqual(newEndpointInput(values), {
    url: 'https://hooks.example.edu/ssp',
    event_types: ['help_request.crisis'],
  });
  assert.equal(newEndpointInput({ ...values, description: 'Help desk' }).description, 'Help desk');
  assert.equal('url' in newEndpointInput({ ...values, url: '' }), false, 'an empty URL is named as missing');
});

test('the endpoints page starts with an empty add form and every event type offered', () => {
  const view = endpointsView([endpoint]);
  assert.deepEqual(view.values, { url: '', description: '', event_types: [] });
  assert.deepEqual(view.eventTypes, [...EVENT_TYPES]);
  assert.equal(view.endpoints[0].url, endpoint.url);
});

test("an endpoint's page: its event types ticked, each delivery with its attempts (none yet is none)", () => {
  const attempt = {
    id: 1,
    attempted_at: '2026-03-04T10:00:01Z',
    outcome: 'http_error',
    status_code: 503,
    duration_ms: 1234,
    error: null,
  };
  const view = endpointView(endpoint, {
    items: [delivery('a', [attempt]), delivery('b')],
    next: 'cursor',
    paged: false,
  });
  assert.equal(view.title, `Webhook endpoint ${endpoint.url}`);
  assert.deepEqual(view.selected, ['help_request.crisis']);
  assert.deepEqual(
    view.deliveries.map((d) => d.tries.length),
    [1, 0],
  );
  assert.equal(view.log.next, 'cursor');
});

test("replay since: a datetime-local value is read in the institution's zone; an ISO time is kept", () => {
  assert.equal(sinceOf('2026-03-04T10:00', 'UTC'), '2026-03-04T10:00:00.000Z');
  assert.equal(sinceOf('2026-03-04T10:00', 'America/New_York'), '2026-03-04T15:00:00.000Z');
  assert.equal(sinceOf('2026-03-04T10:00:00+01:00', 'UTC'), '2026-03-04T10:00:00+01:00');
});
