// A process builds only what it runs: the OIDC client and Redis are opened on first use, so the
// application opens no OIDC client until someone signs in (or a provider is checked), and the
// standalone worker (`ssp worker`) opens neither.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OidcClient } from '../src/domain/people/oidc-client.ts';
import { createRuntime, createWorkers, pullDepsOf } from '../src/runtime.ts';
import { describeEachDatabase, OPERATOR_TOKEN, testConfig } from './helpers/app.ts';
import { openTestDb } from './helpers/db.ts';

describeEachDatabase('the HTTP application', (ctx) => {
  test('serves sign-in pages and the admin API without opening an OIDC client', async () => {
    const live = await ctx().request({ method: 'GET', url: '/health/live' });
    assert.equal(live.statusCode, 200);
    const listed = await ctx().request({
      method: 'GET',
      url: '/admin/v1/institutions',
      token: OPERATOR_TOKEN,
    });
    assert.equal(listed.statusCode, 200);
    const signIn = await ctx().request({ method: 'GET', url: '/auth/sign-in' });
    assert.ok(signIn.statusCode < 500);
    assert.deepEqual(ctx().deps.opened(), { oidc: false, redis: false });
  });
});

test('the OIDC client is opened on its first use, once', async () => {
  const db = await openTestDb('pglite');
  let opened = 0;
  const fake: OidcClient = {
    startSignIn: async () => assert.fail('not called'),
    finishSignIn: async () => assert.fail('not called'),
    check: async () => {},
    close: async () => {},
  };
  const runtime = createRuntime({
    db,
    config: testConfig(),
    openOidc: () => {
      opened++;
      return fake;
    },
  });
  try {
    assert.equal(opened, 0);
    const provider = { issuer: 'https://idp.example.org', clientId: 'c', clientSecret: 's' };
    await runtime.oidc.check(provider);
    await runtime.oidc.check(provider);
    assert.equal(opened, 1);
    assert.deepEqual(runtime.opened(), { oidc: true, redis: false });
  } finally {
    await runtime.close();
    await db.close();
  }
});

test('the standalone worker builds its workers and opens no OIDC client and no Redis', async () => {
  const db = await openTestDb('pglite');
  let opened = 0;
  // REDIS_URL is set (to a port nothing listens on): the worker must not even try it.
  const config = testConfig({ redisUrl: 'redis://127.0.0.1:1' });
  const runtime = createRuntime({
    db,
    config,
    openOidc: () => {
      opened++;
      throw new Error('the worker opened an OIDC client');
    },
  });
  const workers = createWorkers(runtime, pullDepsOf(runtime));
  const quiet = { info() {}, warn() {}, error() {} };
  try {
    const all = workers.all(quiet);
    all.start();
    await all.stop();
    assert.equal(opened, 0);
    assert.deepEqual(runtime.opened(), { oidc: false, redis: false });
  } finally {
    await workers.close();
    await runtime.close();
    await db.close();
  }
});
