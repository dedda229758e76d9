// No input to the calendar feed endpoints gives a 5xx: every malformed body, query or id is a
// 4xx with a stable code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { seedTenant } from '../helpers/app.ts';
import { describeCalendar } from './helpers.ts';

const anyJson = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.array(fc.oneof(fc.string(), fc.uuid(), fc.integer()), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
);

const feedBody = fc.record(
  {
    url: fc.oneof(
      fc.string(),
      fc.webUrl(),
      fc.constantFrom(
        'https://calendar.public.example/x.ics',
        'webcal://calendar.public.example/y',
        'https://\u0000/',
      ),
      anyJson,
    ),
    name: fc.oneof(fc.string(), fc.constant('\u0000'), fc.constant('\uD800'), anyJson),
    refresh_minutes: fc.oneof(fc.integer({ min: -10, max: 20_000 }), anyJson),
    audience_tags: fc.oneof(fc.array(fc.uuid(), { maxLength: 3 }), anyJson),
  },
  { requiredKeys: [] },
);

const text = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '2026-09-01',
    '2026-02-30',
    '2026-09-01T00:00:00Z',
    '2026-09-01T25:00:00+02:00',
    '9999-12-31',
    '0001-01-01',
    '-1',
    '',
  ),
);

describeCalendar('calendar feed endpoints never answer 5xx', (ctx) => {
  test('arbitrary bodies, ids and windows', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const base = `/admin/v1/institutions/${tenant.slug}/calendar-feeds`;
    const created = await ctx().admin('POST', base, { url: 'https://calendar.public.example/fixed.ics' });
    assert.equal(created.statusCode, 201);
    const feedId = created.json().id as string;
    const id = fc.oneof(fc.constant(feedId), fc.uuid(), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          feedBody.map((body) => ({ method: 'POST' as const, url: base, body })),
          fc.tuple(id, feedBody).map(([i, body]) => ({
            method: 'PATCH' as const,
            url: `${base}/${encodeURIComponent(i)}`,
            body,
          })),
          id.map((i) => ({
            method: 'GET' as const,
            url: `${base}/${encodeURIComponent(i)}/fetches?limit=5`,
          })),
          id.map((i) => ({ method: 'DELETE' as const, url: `${base}/${encodeURIComponent(i)}x` })),
          fc
            .tuple(text, text, fc.oneof(fc.constant(undefined), fc.string(), fc.uuid()))
            .map(([from, to, feed]) => ({
              method: 'GET' as const,
              url: `/admin/v1/institutions/${tenant.slug}/calendar-events?${new URLSearchParams({
                from,
                to,
                ...(feed === undefined ? {} : { feed_id: feed }),
              })}`,
            })),
          anyJson.map((body) => ({ method: 'POST' as const, url: base, body })),
        ),
        async (req) => {
          const res = await ctx().admin(req.method, req.url, 'body' in req ? req.body : undefined);
          assert.ok(
            res.statusCode < 500,
            `${req.method} ${req.url} ${JSON.stringify('body' in req ? req.body : null)} -> ${res.statusCode} ${res.body}`,
          );
          if (res.statusCode >= 400) assert.match(res.json().error, /^[a-z_]+$/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
