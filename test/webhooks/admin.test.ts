import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, METRICS_TOKEN, seedTenant } from '../helpers/app.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

describeEachDatabase(
  'webhook endpoints admin API',
  (ctx) => {
    test('add, list, read, update, disable, delete; the secret is shown once', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`;
      const created = await ctx().admin('POST', base, {
        url: 'http://127.0.0.1:9/hook',
        event_types: ['help_request.updated', 'help_request.created', 'help_request.updated'],
        description: 'Help desk',
      });
      assert.equal(created.statusCode, 201);
      const endpoint = created.json();
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(endpoint.secret.slice(6), 'base64').length, 32);
      assert.deepEqual(endpoint.event_types, ['help_request.created', 'help_request.updated']);
      assert.equal(endpoint.enabled, true);
      assert.equal(endpoint.disabled_reason, null);

      const read = await ctx().admin('GET', `${base}/${endpoint.id}`);
      assert.equal(read.statusCode, 200);
      assert.equal(read.json().secret, undefined);
      assert.ok(!read.body.includes(endpoint.secret.slice(6)));
      const list = await ctx().admin('GET', base);
      assert.deepEqual(
        list.json().items.map((e: { id: string }) => e.id),
        [endpoint.id],
      );
      assert.ok(!list.body.includes('whsec_'));

      const patched = await ctx().admin('PATCH', `${base}/${endpoint.id}`, {
        url: 'http://127.0.0.1:10/other',
        event_types: [],
        enabled: false,
      });
      assert.equal(patched.statusCode, 200);
      assert.equal(patched.json().url, 'http://127.0.0.1:10/other');
      assert.deepEqual(patched.json().event_types, []);
      assert.equal(patched.json().enabled, false);
      assert.equal(patched.json().disabled_reason, 'disabled by an administrator');

      const enabled = await ctx().admin('PATCH', `${base}/${endpoint.id}`, { enabled: true });
      assert.equal(enabled.json().enabled, true);
      assert.equal(enabled.json().disabled_reason, null);

      const disabled = await ctx().admin('POST', `${base}/${endpoint.id}/disable`, { reason: 'maintenance' });
      assert.equal(disabled.statusCode, 200);
      assert.equal(disabled.json().enabled, false);
      assert.match(disabled.json().disabled_reason, /maintenance/);

      assert.equal((await ctx().admin('DELETE', `${base}/${endpoint.id}`)).statusCode, 204);
      assert.equal((await ctx().admin('GET', `${base}/${endpoint.id}`)).statusCode, 404);
      assert.equal((await ctx().admin('DELETE', `${base}/${endpoint.id}`)).statusCode, 404);
    });

    test('the signing secret is kept as key material (needed to sign), encrypted at rest, never in responses after creation', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const endpoint = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/hook' });
      const stored = await ctx().db.query<{ secret: string }>(
        'SELECT secret FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      assert.notEqual(stored.rows[0].secret, endpoint.secret);
      assert.equal(ctx().deps.keyring.decrypt(stored.rows[0].secret), endpoint.secret);
      const read = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`,
      );
      assert.ok(!read.body.includes(endpoint.secret) && !read.body.includes('enc:v1'));
    });

    test('another institution cannot see or change an endpoint', async () => {
      const a = await seedTenant(ctx(), { rosterSecret: false });
      const b = await seedTenant(ctx(), { rosterSecret: false });
      const endpoint = await addEndpoint(ctx(), a, { url: 'http://127.0.0.1:9/hook' });
      const other = `/admin/v1/institutions/${b.slug}/webhook-endpoints/${endpoint.id}`;
      for (const [method, url, body] of [
        ['GET', other, undefined],
        ['PATCH', other, { enabled: false }],
        ['DELETE', other, undefined],
        ['POST', `${other}/rotate-secret`, undefined],
        ['POST', `${other}/test`, undefined],
        ['POST', `${other}/disable`, {}],
      ] as const) {
        const res = await ctx().admin(method, url, body);
        assert.equal(res.statusCode, 404, `${method} ${url}`);
        assert.equal(res.json().error, 'not_found');
      }
      assert.equal(
        (await ctx().admin('GET', `/admin/v1/institutions/${b.slug}/webhook-endpoints`)).json().items.length,
        0,
      );
    });

    test('refuses URLs that are not public https, with url_not_allowed', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`;
      for (const url of [
        'http://8.8.8.8/hook',
        'https://10.0.0.1/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::ffff:10.0.0.1]/',
        'https://0x0a000001/',
        'https://100.64.0.1/',
        'https://metadata.google.internal/',
        'https://user:pw@8.8.8.8/',
        'ftp://8.8.8.8/',
      ]) {
        const res = await ctx().admin('POST', base, { url });
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.json().error, 'url_not_allowed', url);
        assert.equal(res.json().field, 'url');
      }
      const endpoint = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/hook' });
      const patch = await ctx().admin('PATCH', `${base}/${endpoint.id}`, { url: 'https://192.168.0.1/' });
      assert.equal(patch.statusCode, 400);
      assert.equal(patch.json().error, 'url_not_allowed');
    });

    test('rejects bad input with 4xx codes, never a 5xx (property)', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`;
      const unknownType = await ctx().admin('POST', base, { url: 'https://8.8.8.8/', event_types: ['nope'] });
      assert.equal(unknownType.statusCode, 400);
      await fc.assert(
        fc.asyncProperty(
          fc.record(
            {
              url: fc.oneof(
                fc.string(),
                fc.webPath().map((p) => `https://10.1.2.3${p}`),
                fc.webPath().map((p) => `http://127.0.0.1:9${p}`),
                fc.integer(),
                fc.constant(null),
              ),
              event_types: fc.oneof(fc.array(fc.string()), fc.string(), fc.constant(null)),
              enabled: fc.oneof(fc.boolean(), fc.string()),
              description: fc.oneof(fc.string(), fc.integer()),
            },
            { requiredKeys: [] },
          ),
          async (body) => {
            const res = await ctx().admin('POST', base, body);
            assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
            if (res.statusCode === 201) await ctx().admin('DELETE', `${base}/${res.json().id}`);
          },
        ),
        { numRuns: 25 },
      );
      const noSuch = await ctx().admin('GET', `${base}/00000000-0000-4000-8000-000000000000`);
      assert.equal(noSuch.statusCode, 404);
      const badId = await ctx().admin('GET', `${base}/not-a-uuid`);
      assert.equal(badId.statusCode, 400);
    });

    test('rotating the secret returns a new one and a 24-hour window for the previous one', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const endpoint = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/hook' });
      const res = await ctx().admin(
        'POST',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}/rotate-secret`,
      );
      assert.equal(res.statusCode, 200);
      const { secret, previous_secret_expires_at } = res.json();
      assert.match(secret, /^whsec_/);
      assert.notEqual(secret, endpoint.secret);
      const windowMs = new Date(previous_secret_expires_at).getTime() - Date.now();
      assert.ok(windowMs > 23.9 * 3_600_000 && windowMs <= 24 * 3_600_000, String(windowMs));
      const read = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`,
      );
      assert.equal(read.json().previous_secret_expires_at, previous_secret_expires_at);
    });

    test('metrics: JSON for the operator, Prometheus text for the scrape token only', async () => {
      const json = await ctx().admin('GET', '/admin/v1/metrics');
      assert.equal(json.statusCode, 200);
      for (const key of [
        'pending',
        'due',
        'in_flight',
        'retrying',
        'failed',
        'failed_last_day',
        'oldest_due_age_seconds',
      ])
        assert.equal(typeof json.json().queue[key], 'number', key);
      const text = await ctx().request({ method: 'GET', url: '/metrics', token: METRICS_TOKEN });
      assert.equal(text.statusCode, 200);
      assert.match(text.headers['content-type'] as string, /^text\/plain/);
      assert.match(text.body, /^ssp_webhook_deliveries\{state="pending"\} \d+$/m);
      assert.equal((await ctx().request({ method: 'GET', url: '/metrics' })).statusCode, 401);
      assert.equal((await ctx().admin('GET', '/metrics')).statusCode, 401);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
