import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CalendarFeed } from '../../../domain/calendar/feeds.ts';
import type { RunSummary } from '../../../domain/runs/schemas.ts';
import type { WebhookEndpoint } from '../../../domain/webhooks/schemas.ts';
import { escalationAttention, type HealthFacts, healthView, rotationDaysLeft } from './health-view.ts';

const now = new Date('2026-06-01T00:00:00Z');
const calm: HealthFacts = {
  roster: undefined,
  enrolments: undefined,
  held: [],
  rosterSecret: { state: 'active', issued_at: now, rotate_by: new Date('2026-08-01T00:00:00Z') },
  syncSecret: undefined,
  endpoints: undefined,
  feeds: [],
  failingSources: [],
};

const run = { id: 'r1', kind: 'roster', error_count: 2, received: 10 } as unknown as RunSummary;
const endpoint = (over: Partial<WebhookEndpoint>) =>
  ({
    id: 'e1',
    url: 'https://hooks.example.edu',
    enabled: true,
    failing_since: null,
    ...over,
  }) as WebhookEndpoint;
const feed = {
  id: 'f1',
  url: 'https://cal.example.edu/t.ics',
  name: null,
  health: 'failing',
  last_error: 'HTTP 500',
  failing_since: new Date('2026-05-31T06:00:00Z'),
  next_fetch_at: new Date('2026-06-01T06:00:00Z'),
} as CalendarFeed;

test('nothing needs attention when pushes are clean and the secret is in date', () => {
  const page = healthView(calm, 'uni', now);
  assert.deepEqual(page.attention, []);
  assert.equal(page.rotationDays, 61);
  assert.deepEqual(page.pushes, [
    { label: 'Roster', run: undefined },
    { label: 'Enrolments', run: undefined },
  ]);
});

test('each problem is listed with a link to its page', () => {
  const page = healthView(
    {
      ...calm,
      roster: run,
      held: [{}, {}] as unknown as HealthFacts['held'],
      rosterSecret: { state: 'active', rotate_by: new Date('2026-06-05T00:00:00Z') },
      endpoints: [
        endpoint({ enabled: false, disabled_reason: '410 Gone' }),
        endpoint({ id: 'e2', failing_since: now }),
        endpoint({ id: 'e3' }),
      ],
      feeds: [feed, { ...feed, id: 'f2', health: 'ok' }],
    },
    'uni',
    now,
  );
  assert.deepEqual(
    page.attention.map((item) => `${item.text} -> ${item.href}`),
    [
      'The last roster push had 2 row errors -> /console/uni/runs/r1',
      '2 full syncs with held departures wait for a decision -> /console/uni/full-syncs',
      'The roster secret is due for rotation in 4 days -> /console/uni/secrets',
      'Webhook endpoint https://hooks.example.edu: disabled: 410 Gone -> /console/uni/webhooks/e1',
      'Webhook endpoint https://hooks.example.edu: failing since 2026-06-01 00:00 UTC -> /console/uni/webhooks/e2',
      'Calendar feed https://cal.example.edu/t.ics: failing since 2026-05-31 06:00 UTC: HTTP 500; next attempt 2026-06-01 06:00 UTC -> /console/uni/calendar-feeds/f1',
    ],
  );
  assert.equal(page.troubled.length, 2);
  assert.equal(page.failingFeeds.length, 1);
});

test('a roster secret not active, or past its date, is said so', () => {
  const revoked = healthView({ ...calm, rosterSecret: { state: 'not_configured' } }, 'uni', now);
  assert.equal(revoked.attention[0].text, 'The roster secret is not configured');
  const late = healthView(
    { ...calm, rosterSecret: { state: 'active', rotate_by: new Date('2026-05-01T00:00:00Z') } },
    'uni',
    now,
  );
  assert.equal(late.attention[0].text, 'The roster secret is past its rotation date');
  assert.equal(rotationDaysLeft({ state: 'revoked' }, now), undefined);
});

test('a failing OneRoster source needs attention, its time in the institution zone', () => {
  const failing = {
    institution_id: 'i',
    slug: 'x',
    name: 'X',
    last_error: 'token endpoint answered 401',
    failing_since: new Date('2026-05-31T22:00:00Z'),
    failure_count: 3,
    last_success_at: null,
  };
  const view = healthView(
    { ...calm, failingSources: [failing] },
    'x',
    now,
    (v) => `at ${String(v instanceof Date ? v.toISOString() : v)}`,
  );
  assert.deepEqual(view.attention.at(-1), {
    text: 'The OneRoster source is failing since at 2026-05-31T22:00:00.000Z: token endpoint answered 401',
    href: '/console/x/oneroster-source',
  });
});

test('escalated crisis requests are counted, past the bound as "more than"', () => {
  const requests = [{ created_at: now, help_request_id: 'r1' }];
  const time = () => '2026-06-01 01:00 UTC';
  assert.equal(escalationAttention({ total: 0, requests: [] }, 'uni'), undefined);
  assert.match(
    escalationAttention({ total: 1, requests }, 'uni', time)?.text ?? '',
    /^1 escalated crisis request waits/,
  );
  assert.match(
    escalationAttention({ total: 100, more: true, requests }, 'uni', time)?.text ?? '',
    /^More than 100 escalated crisis requests wait for someone to pick them up/,
  );
});
