// The roster feed's per-client rate limit: 429 with Retry-After, keyed by the client address
// (which TRUST_PROXY decides), shared between instances through Redis.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { describeEachDatabase, seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { pushRoster } from '../helpers/roster.ts';

const URL = '/api/sis/sync';

function push(
  ctx: TestContext,
  options: { token?: string; cohortId: string; remoteAddress?: string; forwardedFor?: string },
) {
  return ctx.app.inject({
    method: 'POST',
    url: URL,
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
    },
    payload: JSON.stringify({ cohort_id: options.cohortId, students: [] }),
  });
}

describeEachDatabase(
  'roster sync rate limit',
  (ctx) => {
    test('after the limit, 429 rate_limited with Retry-After; other clients are unaffected', async () => {
      const tenant = await seedTenant(ctx());
      const send = (remoteAddress: string) =>
        push(ctx(), { token: tenant.rosterSecret, cohortId: tenant.cohortId, remoteAddress });
      for (let i = 0; i < 3; i++) assert.equal((await send('10.1.0.1')).statusCode, 200);
      const limited = await send('10.1.0.1');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error, 'rate_limited');
      assert.equal(limited.json().max, 3);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, String(retryAfter));
      assert.equal((await send('10.1.0.2')).statusCode, 200);
    });

    test('unauthenticated requests count too, and are limited before the secret is checked', async () => {
      const send = () =>
        push(ctx(), {
          token: 'wrong',
          cohortId: '00000000-0000-4000-8000-000000000000',
          remoteAddress: '10.2.0.1',
        });
      for (let i = 0; i < 3; i++) assert.equal((await send()).statusCode, 401);
      assert.equal((await send()).statusCode, 429);
    });

    test('without TRUST_PROXY, X-Forwarded-For is ignored', async () => {
      const tenant = await seedTenant(ctx());
      for (let i = 0; i < 3; i++) {
        const res = await push(ctx(), {
          token: tenant.rosterSecret,
          cohortId: tenant.cohortId,
          remoteAddress: '10.3.0.1',
          forwardedFor: `198.51.100.${i}`,
        });
        assert.equal(res.statusCode, 200);
      }
      const res = await push(ctx(), {
        token: tenant.rosterSecret,
        cohortId: tenant.cohortId,
        remoteAddress: '10.3.0.1',
        forwardedFor: '198.51.100.99',
      });
      assert.equal(res.statusCode, 429);
    });
  },
  { config: { rosterRateLimitPerMinute: 3 } },
);

describeEachDatabase(
  'roster sync rate limit behind a trusted proxy',
  (ctx) => {
    test('with TRUST_PROXY, the client is the X-Forwarded-For address', async () => {
      const tenant = await seedTenant(ctx());
      const send = (forwardedFor: string) =>
        push(ctx(), {
          token: tenant.rosterSecret,
          cohortId: tenant.cohortId,
          remoteAddress: '10.0.0.9',
          forwardedFor,
        });
      assert.equal((await send('203.0.113.1')).statusCode, 200);
      assert.equal((await send('203.0.113.1')).statusCode, 200);
      assert.equal((await send('203.0.113.1')).statusCode, 429);
      // Same proxy, another client behind it.
      assert.equal((await send('203.0.113.2')).statusCode, 200);
    });
  },
  { config: { rosterRateLimitPerMinute: 2 }, env: { TRUST_PROXY: '10.0.0.0/8' } },
);

const redisUrl = process.env.TEST_REDIS_URL;

test('the limit is shared between two instances through Redis', {
  skip: !redisUrl && 'TEST_REDIS_URL not set',
}, async () => {
  const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
  const nameSpace = `ssp-test-shared-${randomBytes(6).toString('hex')}:`;
  const kind = databaseKinds()[0];
  const first = await startTestApp(kind, {
    redis,
    rateLimitNameSpace: nameSpace,
    config: { rosterRateLimitPerMinute: 3 },
  });
  const second = await startTestApp(kind, {
    db: first.db,
    redis,
    rateLimitNameSpace: nameSpace,
    config: { rosterRateLimitPerMinute: 3 },
  });
  try {
    const tenant = await seedTenant(first);
    const send = (ctx: TestContext) =>
      push(ctx, { token: tenant.rosterSecret, cohortId: tenant.cohortId, remoteAddress: '10.4.0.1' });
    assert.equal((await send(first)).statusCode, 200);
    assert.equal((await send(second)).statusCode, 200);
    assert.equal((await send(first)).statusCode, 200);
    const limited = await send(second);
    assert.equal(limited.statusCode, 429);
    assert.ok(limited.headers['retry-after']);
  } finally {
    await second.close();
    await first.close();
    const keys = await redis.keys(`${nameSpace}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
});

describeEachDatabase(
  'roster sync with Redis unreachable',
  (ctx) => {
    test('requests are served without waiting for Redis', async () => {
      const tenant = await seedTenant(ctx());
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        const res = await pushRoster(ctx(), tenant, { students: [] });
        assert.equal(res.statusCode, 200, res.body);
      }
      // Queued behind reconnects, five requests took over 7 s (growing 0.6, 1.2, 5 s waits);
      // failing fast they take tens of milliseconds. The bound is generous for a busy machine.
      assert.ok(performance.now() - started < 2500, 'served without waiting for Redis');
    });
  },
  { config: { redisUrl: 'redis://127.0.0.1:1', rosterRateLimitPerMinute: 5 } },
);
