// A route's credential fits its access, or the application refuses to start: a feed names the
// secret the request context verifies for it, and no other route names a feed's secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registerRequestContext } from '../../src/app/context/request-context.ts';
import type { App } from '../../src/app/types.ts';

/** Registers one route on a bare application with the request context; resolves once ready. */
async function start(config: Record<string, unknown>): Promise<void> {
  const app = Fastify() as unknown as App;
  // Registration reads no dependency; a request would.
  registerRequestContext(app);
  try {
    app.post('/x', { config }, async () => ({}));
    await app.ready();
  } finally {
    await app.close();
  }
}

test('a feed route names its secret, and only a feed route does', async () => {
  await assert.rejects(start({ access: 'feed' }), /feed route names its secret/);
  await assert.rejects(
    start({ access: 'admin', credential: 'roster_secret' }),
    /feed route names its secret/,
  );
  await assert.rejects(start({ access: 'feed', credential: 'operator' }), /feed route names its secret/);
  await assert.rejects(start({ access: 'feed', credential: 'api_key' }), /unknown config.credential/);
  await start({ access: 'feed', credential: 'roster_secret' });
  await start({ access: 'feed', credential: 'sync_secret' });
  await start({ access: 'admin' });
  await start({ access: 'read', credential: 'session' });
});
