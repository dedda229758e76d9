// A database outage answers 503 database_unavailable with Retry-After on every endpoint, and
// the service recovers on its own once the database is back. On PostgreSQL the outage is
// real: the app connects through a TCP proxy started here, which is cut (every connection
// dropped, new ones refused) and then restored on the same port. PGlite has no connection to
// lose; what applies there is an embedded database that is no longer open.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPostgresDb, type Db } from '../../src/db/db.ts';
import { type SeededTenant, seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { seedHelpdesk } from '../helpers/helpdesk.ts';
import { pushEnrolments, pushRoster } from '../helpers/roster.ts';
import { openScratchPostgres, type ScratchPostgres } from '../helpers/scratch-db.ts';

/** A TCP proxy to host:port that can be cut and restored. */
async function startProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    /** Refuses new connections and drops every open one, as a database going away does. */
    async cut() {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    restore: listen,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
    },
  };
}

/** One request to every kind of endpoint: the three feeds and the admin API. */
function everyEndpoint(ctx: TestContext, tenant: SeededTenant & { syncSecret: string }) {
  return [
    () => pushRoster(ctx, tenant, { students: [{ email: 'a@example.edu', student_id_ext: 'A1' }] }),
    () => pushEnrolments(ctx, tenant, { programs: [{ program_code: 'P1' }] }),
    () =>
      ctx.request({
        method: 'POST',
        url: '/api/integrations/help-sync',
        token: tenant.syncSecret,
        body: { institution: tenant.slug, updates: [] },
      }),
    () => ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/runs`),
    () => ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students`),
  ];
}

function assertUnavailable(res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(JSON.parse(res.body).error, 'database_unavailable');
  assert.ok(Number(res.headers['retry-after']) > 0, 'Retry-After in seconds');
}

const url = process.env.TEST_DATABASE_URL;

describe('database outage [postgres]', { skip: url ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let scratch: ScratchPostgres;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let db: Db;
  let ctx: TestContext;
  const appName = `ssp_outage_${process.pid}_${Date.now()}`;

  before(async () => {
    scratch = await openScratchPostgres(url!, { prefix: 'outage', max: 2 });
    const target = new URL(url!);
    proxy = await startProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(scratch.connectionString);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    // Named, so that only this app's connections are ever terminated on the shared server.
    viaProxy.searchParams.set('application_name', appName);
    db = createPostgresDb({ connectionString: viaProxy.toString(), schema: scratch.schema, max: 4 });
    ctx = await startTestApp('postgres', { db });
  });

  after(async () => {
    await ctx?.close();
    await db?.close().catch(() => {});
    await proxy?.close();
    await scratch?.close();
  });

  test('every endpoint answers 503 database_unavailable with Retry-After, then recovers without a restart', async () => {
    const tenant = await seedHelpdesk(ctx);
    const calls = everyEndpoint(ctx, tenant);
    for (const call of calls) assert.equal((await call()).statusCode, 200);

    await proxy.cut();
    for (const call of calls) assertUnavailable(await call());
    // Still down: the pool keeps trying on each request, and keeps answering 503.
    assertUnavailable(await calls[0]());

    await proxy.restore();
    for (const call of calls) {
      const res = await call();
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  test('backends terminated by the server (pg_terminate_backend) cost no request a 5xx once reconnected', async () => {
    const tenant = await seedTenant(ctx);
    const push = () => pushRoster(ctx, tenant, { students: [] });
    assert.equal((await push()).statusCode, 200);
    // Every backend of this app goes (from a second connection); idle pool clients notice and
    // are replaced.
    const { rows } = await scratch.query<{ terminated: boolean }>(
      'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1',
      [appName],
    );
    assert.ok(rows.length > 0 && rows.every((r) => r.terminated));
    // A request that meets one of the dead idle connections is 503 at worst, never a 500; each
    // dead connection is dropped by the pool as it is met, so within the pool's size requests
    // succeed again.
    let last = await push();
    for (let i = 0; i < 12 && last.statusCode !== 200; i++) {
      assert.equal(last.statusCode, 503, last.body);
      assertUnavailable(last);
      last = await push();
    }
    assert.equal(last.statusCode, 200, last.body);
    assert.equal((await push()).statusCode, 200);
  });
});

describe('database outage [pglite]', () => {
  let ctx: TestContext;
  let closed = false;

  before(async () => {
    ctx = await startTestApp('pglite');
  });

  after(async () => {
    if (closed) await ctx.app.close();
    else await ctx.close();
  });

  test('an embedded database that is no longer open answers 503 database_unavailable with Retry-After', async () => {
    const tenant = await seedHelpdesk(ctx);
    const calls = everyEndpoint(ctx, tenant);
    for (const call of calls) assert.equal((await call()).statusCode, 200);
    await ctx.db.close();
    closed = true;
    for (const call of calls) assertUnavailable(await call());
  });
});
