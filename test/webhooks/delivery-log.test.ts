import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

/**
 * `count` deliveries to the endpoint, one a minute from 2026-04-01, delivery i with i % 4 + 1
 * attempts (so the newest attempts of the endpoint belong to a few deliveries only).
 */
async function seedLog(ctx: TestContext, tenant: SeededTenant, endpointId: string, count: number) {
  await ctx.db.transaction(async (tx) => {
    // Recording an event fans it out to the endpoint (a delivery per event).
    await tx.query(
      `INSERT INTO events (institution_id, type, payload, occurred_at)
       SELECT $1, 'help_request.created', '{"type":"help_request.created","timestamp":"","data":{}}'::jsonb,
              timestamptz '2026-04-01T00:00:00Z' + g * interval '1 minute'
       FROM generate_series(1, $2::int) AS g`,
      [tenant.institutionId, count],
    );
    await tx.query(
      `UPDATE webhook_deliveries d SET state = 'failed', created_at = ev.occurred_at
       FROM events ev WHERE ev.id = d.event_id AND d.endpoint_id = $1`,
      [endpointId],
    );
    await tx.query(
      `INSERT INTO webhook_attempts (institution_id, delivery_id, endpoint_id, event_id, attempted_at, outcome,
                                     status_code, duration_ms)
       SELECT d.institution_id, d.id, d.endpoint_id, d.event_id, d.created_at + a * interval '1 second',
              'http_error', 500 + a, 10
       FROM webhook_deliveries d,
            generate_series(1, (extract(epoch FROM d.created_at)::bigint / 60 % 4 + 1)::int) AS a
       WHERE d.endpoint_id = $1
       ORDER BY d.created_at, a`,
      [endpointId],
    );
  });
}

describeEachDatabase('webhook delivery log: cursor paging with each delivery’s attempts', (ctx) => {
  test('pages every delivery once, newest first, each with all of its attempts', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const endpoint = await addEndpoint(ctx(), tenant, { url: 'https://8.8.8.8/hook' });
    await seedLog(ctx(), tenant, endpoint.id, 23);
    const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}/deliveries`;

    const seen: {
      id: string;
      created_at: string;
      attempts: number;
      attempt_log: { status_code: number }[];
    }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await ctx().admin(
        'GET',
        `${base}?include_attempts=true&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      seen.push(...res.json().items);
      cursor = res.json().next_cursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 5);
    assert.equal(new Set(seen.map((d) => d.id)).size, 23);
    const times = seen.map((d) => Date.parse(d.created_at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    // Every delivery, old or new, carries its own attempts in order (none lost to a global cap).
    for (const d of seen) {
      const minute = Date.parse(d.created_at) / 60_000;
      const expected = Array.from({ length: (minute % 4) + 1 }, (_, i) => 501 + i);
      assert.deepEqual(
        d.attempt_log.map((a) => a.status_code),
        expected,
      );
    }
    // Without the option, no attempt_log.
    const plain = await ctx().admin('GET', `${base}?limit=1`);
    assert.equal('attempt_log' in plain.json().items[0], false);
    const bad = await ctx().admin('GET', `${base}?include_attempts=maybe`);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_field');
  });
});
