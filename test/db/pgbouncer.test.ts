// The PostgreSQL features through PgBouncer in transaction pooling mode, as a large deployment
// runs many instances on one database: migrations from two instances at once, a roster push,
// help-sync, webhook delivery by two workers (claims and leases), a calendar refresh and a
// sign-in through a real OpenID provider with the session it starts. The bouncer gets a small
// server pool, so the clients here (the app's pool, two workers' pools, the migrators) share
// a few server connections and any session-level state would break a feature. Runs when
// PgBouncer is installed (/usr/sbin/pgbouncer, Debian's package) and TEST_DATABASE_URL is set;
// the database is a fresh one, dropped afterwards.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPostgresDb, type Db } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { refreshStatistics } from '../../src/db/statistics.ts';
import { claimFeed, refreshFeed } from '../../src/domain/calendar/refresh.ts';
import { DEFAULT_LIMITS } from '../../src/domain/calendar/schedule.ts';
import { recordEvent } from '../../src/domain/events/record.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createWebhookWorker } from '../../src/workers/webhook-delivery.ts';
import { seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { createHelpRequest, helpSync, seedHelpdesk } from '../helpers/helpdesk.ts';
import { type DevIdp, signInThroughProvider, startTestIdp, TEST_CLIENT } from '../helpers/idp.ts';
import { invitePerson } from '../helpers/people.ts';
import { PGBOUNCER, type Pgbouncer, startPgbouncer } from '../helpers/pgbouncer.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { pushRoster } from '../helpers/roster.ts';
import { createEmptyDatabase } from '../helpers/scratch-db.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const skip = !fs.existsSync(PGBOUNCER)
  ? `PgBouncer is not installed at ${PGBOUNCER} (apt-get install -y pgbouncer); skipped`
  : !serverUrl
    ? 'TEST_DATABASE_URL is not set: the PgBouncer run needs a PostgreSQL; skipped'
    : false;

const PUBLIC = 'http://127.0.0.1:3000';

describe('PostgreSQL features through PgBouncer (transaction pooling)', { skip }, () => {
  let database: Awaited<ReturnType<typeof createEmptyDatabase>> | undefined;
  let bouncer: Pgbouncer;
  const opened: Db[] = [];
  let ctx: TestContext;
  let idp: DevIdp;
  /** A database of the service's own kind, through the bouncer, as an instance opens it. */
  const open = (max = 5) => {
    const db = createPostgresDb({ connectionString: bouncer.url, max });
    opened.push(db);
    return db;
  };

  before(async () => {
    database = await createEmptyDatabase(serverUrl!, 'ssp_pgbouncer');
    bouncer = await startPgbouncer({ serverUrl: serverUrl!, dbname: database.name, poolSize: 3 });
    idp = await startTestIdp({ clients: [{ ...TEST_CLIENT, redirect_uris: [`${PUBLIC}/auth/callback`] }] });
  });
  after(async () => {
    await ctx?.close();
    await Promise.all(opened.map((db) => db.close().catch(() => {})));
    await idp?.close();
    await bouncer?.close();
    await database?.drop();
  });

  test('two instances migrating at once: every migration applied once', async () => {
    const [a, b] = await Promise.all([migrate(open(2)), migrate(open(2))]);
    const all = listMigrations().map((m) => m.version);
    assert.deepEqual([...a, ...b].sort(), all, bouncer.log().slice(-2000));
    const db = open(1);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    assert.equal(rows[0].n, all.length);
    ctx = await startTestApp('postgres', {
      db: open(10),
      config: { allowLoopbackOutbound: true, publicBaseUrl: PUBLIC },
    });
  });

  test("a roster push creates, then updates, its students; the feeds' ANALYZE runs through the pooler", async () => {
    const tenant = await seedTenant(ctx);
    const students = (version: number) =>
      Array.from({ length: 1000 }, (_, i) => ({
        email: `s${i}@pooled.example.edu`,
        student_id_ext: `P${i}`,
        first_name: `Given${i}v${version}`,
      }));
    const push = (version: number) => pushRoster(ctx, tenant, { students: students(version) });
    // Two pushes of different institutions at once take their own institution's locks.
    const other = await seedTenant(ctx);
    const [first, parallel] = await Promise.all([push(0), pushRoster(ctx, other, { students: students(0) })]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().created, 1000);
    assert.equal(parallel.json().created, 1000);
    const second = await push(1);
    assert.equal(second.json().updated, 1000);
    // What an enrolments page runs after a large write (src/db/statistics.ts): a plain statement.
    assert.deepEqual(await refreshStatistics(ctx.db, tenant.institutionId, { students: 1000 }), ['students']);
    const { rows } = await ctx.db.query<{ reltuples: number }>(
      "SELECT reltuples FROM pg_class WHERE oid = 'students'::regclass",
    );
    assert.ok(Number(rows[0].reltuples) >= 2000, `the statistics count ${rows[0].reltuples} students`);
  });

  test('help-sync changes a request', async () => {
    const tenant = await seedHelpdesk(ctx);
    const request = await createHelpRequest(ctx, tenant);
    const res = await helpSync(ctx, tenant.syncSecret, {
      institution: tenant.slug,
      actor: 'Pooled Desk',
      updates: [{ help_request_id: request.id, action: 'resolve', note: 'done', external_ref: 'INC-1' }],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().results.map((r: { ok: boolean }) => r.ok),
      [true],
    );
  });

  test('two delivery workers share a backlog: every delivery sent once', async () => {
    const tenant = await seedTenant(ctx, { rosterSecret: false });
    const receiver = await startReceiver({ status: 204 });
    try {
      const endpoint = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`, {
        url: receiver.url,
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      const events = 200;
      for (let i = 0; i < events; i++) {
        await ctx.db.transaction((tx) =>
          recordEvent(tx, {
            institutionId: tenant.institutionId,
            type: 'help_request.updated',
            helpRequestId: randomUUID(),
            data: { status: 'ack', version: i },
            occurredAt: new Date(),
          }),
        );
      }
      const workers = [1, 2].map((n) =>
        createWebhookWorker({
          db: open(3),
          clock: systemClock,
          policy: { allowLoopback: true },
          keyring: ctx.deps.keyring,
          institutionIds: [tenant.institutionId],
          batchSize: 20,
          workerId: `pooled-${n}`,
        }),
      );
      for (const worker of workers) worker.start();
      const deadline = Date.now() + 30_000;
      while (receiver.received.length < events && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await Promise.all(workers.map((worker) => worker.stop()));
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      assert.equal(ids.length, events, 'every delivery arrived');
      assert.equal(new Set(ids).size, events, 'none twice');
      const { rows } = await ctx.db.query<{ state: string; n: number }>(
        `SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE institution_id = $1 GROUP BY state`,
        [tenant.institutionId],
      );
      assert.deepEqual(rows, [{ state: 'succeeded', n: events }]);
    } finally {
      await receiver.close();
    }
  });

  test('a calendar feed is refreshed and its events listed', async () => {
    const tenant = await seedTenant(ctx, { rosterSecret: false });
    const body = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Pooled//EN',
      'BEGIN:VEVENT',
      'UID:lecture@pooled.example.edu',
      'DTSTART:20260907T090000Z',
      'DTEND:20260907T100000Z',
      'RRULE:FREQ=WEEKLY;COUNT=4',
      'SUMMARY:Lecture',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar', etag: '"v1"' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/timetable.ics`;
      // Stored directly: the admin API accepts https addresses only.
      const { rows } = await ctx.db.query<{ id: string }>(
        'INSERT INTO calendar_feeds (institution_id, url) VALUES ($1, $2) RETURNING id',
        [tenant.institutionId, url],
      );
      const deps = {
        db: ctx.db,
        clock: { now: () => new Date('2026-09-01T06:00:00Z') },
        policy: { allowLoopback: true },
        limits: DEFAULT_LIMITS,
        random: () => 0,
      };
      const claimed = await claimFeed(deps, tenant.institutionId, rows[0].id);
      assert.ok(claimed, 'claimed');
      const record = await refreshFeed(deps, claimed, 'manual');
      assert.equal(record?.status, 'ok', record?.error ?? '');
      const listed = await ctx.admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/calendar-events?from=2026-09-01&to=2026-10-31`,
      );
      assert.equal(listed.statusCode, 200, listed.body);
      assert.equal(listed.json().items.length, 4);
    } finally {
      server.close();
    }
  });

  test('a person signs in through the provider and the session serves the API and the console', async () => {
    const tenant = await seedTenant(ctx);
    const put = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/identity-provider`, {
      issuer: idp.issuer,
      client_id: TEST_CLIENT.client_id,
      client_secret: TEST_CLIENT.client_secret,
      email_domains: ['example.edu'],
    });
    assert.equal(put.statusCode, 200, put.body);
    await invitePerson(ctx, tenant, { roles: ['admin'], email: 'admin@example.edu' });
    const begin = await ctx.request({ method: 'GET', url: `/auth/${tenant.slug}/sign-in` });
    assert.equal(begin.statusCode, 302, begin.body);
    const flow = begin.cookies.find((c) => c.name === 'ssp_signin')!.value;
    const callback = await signInThroughProvider(begin.headers.location as string, 'sub-admin');
    const done = await ctx.request({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { cookie: `ssp_signin=${flow}` },
    });
    assert.equal(done.statusCode, 303, done.body);
    const session = done.cookies.find((c) => c.name === 'ssp_session' && c.value)?.value;
    assert.ok(session, 'a session cookie');
    const me = await ctx.request({
      method: 'GET',
      url: '/admin/v1/me',
      headers: { cookie: `ssp_session=${session}` },
    });
    assert.equal(me.statusCode, 200, me.body);
    const page = await ctx.request({
      method: 'GET',
      url: `/console/${tenant.slug}/`,
      headers: { cookie: `ssp_session=${session}` },
    });
    assert.equal(page.statusCode, 200);
  });

  test('the clients shared no more server connections than the pool holds', async () => {
    const { rows } = await ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()',
    );
    // The pool's connections, plus at most the one this query's own pg_stat_activity row is.
    assert.ok(
      rows[0].n <= bouncer.poolSize,
      `${rows[0].n} server connections for a pool of ${bouncer.poolSize}`,
    );
    assert.ok(opened.length >= 6, 'more clients than server connections');
  });
});
