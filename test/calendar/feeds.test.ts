// Calendar feeds end to end: the admin API, a real local HTTP server serving calendars as
// Google, Outlook/Exchange, iCloud and Moodle write them, the fetch worker, and every bad feed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimFeed, refreshDepsOf } from '../../src/domain/calendar/refresh.ts';
import { createCalendarFetchWorker } from '../../src/workers/calendar-fetch.ts';
import { seedTenant } from '../helpers/app.ts';
import { googleCalendar, icloudCalendar, moodleCalendar, outlookCalendar } from './calendars.ts';
import { describeCalendar, loopbackLookup, sharedFeedServer, TEST_LIMITS } from './helpers.ts';

const server = sharedFeedServer();

let pathCounter = 0;
const freshPath = (name: string) => `/${name}-${++pathCounter}.ics`;

type Ctx = Parameters<Parameters<typeof describeCalendar>[1]>[0];
type Route = Parameters<typeof server.routes.set>[1];

async function addFeed(ctx: Ctx, slug: string, url: string, extra: object = {}) {
  const res = await ctx().admin('POST', `/admin/v1/institutions/${slug}/calendar-feeds`, { url, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}
/** A feed of the institution at a fresh path (`name`) that the server answers with `route`. */
async function servedFeed(ctx: Ctx, slug: string, name: string, route: Route, extra: object = {}) {
  const path = freshPath(name);
  server.routes.set(path, route);
  return { path, feed: await addFeed(ctx, slug, server.url(path), extra) };
}
async function fetchNow(ctx: Ctx, slug: string, id: string) {
  const res = await ctx().admin('POST', `/admin/v1/institutions/${slug}/calendar-feeds/${id}/fetch`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}
async function events(ctx: Ctx, slug: string, feedId?: string, from = '2026-01-01', to = '2027-06-01') {
  const res = await ctx().admin(
    'GET',
    `/admin/v1/institutions/${slug}/calendar-events?from=${from}&to=${to}&limit=1000${feedId ? `&feed_id=${feedId}` : ''}`,
  );
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items as Record<string, unknown>[];
}
const brief = (e: Record<string, unknown>) => `${e.start}..${e.end} ${e.status} ${e.summary}`;

describeCalendar('calendar feeds', (ctx) => {
  test('add, list, read, update and delete a feed; another institution sees none of it', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const other = await seedTenant(ctx(), { rosterSecret: false });
    const { rows: tags } = await ctx().db.query<{ id: string }>(
      `INSERT INTO audience_tags (institution_id, kind, source_id, label) VALUES ($1, 'program', gen_random_uuid(), 'Nursing')
       RETURNING id`,
      [tenant.institutionId],
    );
    const feed = await addFeed(ctx, tenant.slug, server.url('/crud.ics'));
    assert.equal(feed.refresh_minutes, 60);
    assert.equal(feed.health, 'pending');
    assert.deepEqual(feed.audience_tags, []);
    assert.equal(feed.name, null);
    const base = `/admin/v1/institutions/${tenant.slug}/calendar-feeds`;
    const patched = await ctx().admin('PATCH', `${base}/${feed.id}`, {
      name: 'Term dates',
      refresh_minutes: 15,
      audience_tags: [tags[0].id],
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(
      [patched.json().name, patched.json().refresh_minutes, patched.json().audience_tags],
      ['Term dates', 15, [tags[0].id]],
    );
    const unknownTag = await ctx().admin('PATCH', `${base}/${feed.id}`, {
      audience_tags: ['00000000-0000-4000-8000-000000000000'],
    });
    assert.equal(unknownTag.statusCode, 400);
    assert.equal(unknownTag.json().field, 'audience_tags');
    const list = await ctx().admin('GET', base);
    assert.deepEqual(
      list.json().items.map((f: { id: string }) => f.id),
      [feed.id],
    );
    const otherBase = `/admin/v1/institutions/${other.slug}/calendar-feeds`;
    assert.equal((await ctx().admin('GET', `${otherBase}/${feed.id}`)).statusCode, 404);
    assert.equal((await ctx().admin('PATCH', `${otherBase}/${feed.id}`, { name: 'x' })).statusCode, 404);
    assert.equal((await ctx().admin('POST', `${otherBase}/${feed.id}/fetch`)).statusCode, 404);
    assert.equal((await ctx().admin('GET', `${otherBase}/${feed.id}/fetches`)).statusCode, 404);
    assert.equal((await ctx().admin('DELETE', `${otherBase}/${feed.id}`)).statusCode, 404);
    assert.equal((await ctx().admin('DELETE', `${base}/${feed.id}`)).statusCode, 204);
    assert.equal((await ctx().admin('GET', `${base}/${feed.id}`)).statusCode, 404);
    assert.equal((await ctx().admin('DELETE', `${base}/${feed.id}`)).statusCode, 404);
  });

  test('Google Calendar: weekly series in Europe/Berlin with EXDATE and a moved occurrence; 304; add, change, remove', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const { path, feed } = await servedFeed(
      ctx,
      tenant.slug,
      'google',
      { headers: { etag: '"v1"' }, body: googleCalendar() },
      { name: 'Student services' },
    );
    const first = await fetchNow(ctx, tenant.slug, feed.id);
    assert.deepEqual(
      [
        first.status,
        first.http_status,
        first.events_added,
        first.events_updated,
        first.events_removed,
        first.error,
      ],
      ['ok', 200, 10, 0, 0, null],
    );
    const listed = await events(ctx, tenant.slug, feed.id);
    assert.deepEqual(listed.map(brief), [
      '2026-09-07T07:15:00.000Z..2026-09-07T08:45:00.000Z confirmed Einführungsvorlesung',
      '2026-09-10T12:00:00.000Z..2026-09-10T13:30:00.000Z confirmed Study skills seminar',
      '2026-09-15T14:00:00.000Z..2026-09-15T15:30:00.000Z confirmed Einführungsvorlesung (verschoben)',
      '2026-09-16..2026-09-17 confirmed Open office day',
      '2026-09-28T07:15:00.000Z..2026-09-28T08:45:00.000Z confirmed Einführungsvorlesung',
      '2026-10-05T07:15:00.000Z..2026-10-05T08:45:00.000Z confirmed Einführungsvorlesung',
      '2026-10-12T07:15:00.000Z..2026-10-12T08:45:00.000Z confirmed Einführungsvorlesung',
      '2026-10-19T07:15:00.000Z..2026-10-19T08:45:00.000Z confirmed Einführungsvorlesung',
      '2026-10-26T08:15:00.000Z..2026-10-26T09:45:00.000Z confirmed Einführungsvorlesung',
      '2026-11-02T08:15:00.000Z..2026-11-02T09:45:00.000Z confirmed Einführungsvorlesung',
    ]);
    const moved = listed[2];
    assert.equal(moved.uid, '4h1q0v9l7d3m2kq1r6o8a5c9t0@google.com');
    assert.equal(moved.recurrence_id, '2026-09-14T07:15:00Z');
    assert.equal(moved.location, 'Raum 2.07');
    assert.equal(listed[0].location, 'Hörsaal 1, Hauptgebäude');
    assert.equal(
      listed[0].description,
      'Weekly introduction lecture.\nBring your student card; seats are limited.',
    );
    assert.equal(listed[1].recurrence_id, null);
    assert.equal(listed[3].all_day, true);

    // Unchanged: the conditional request is answered 304 and nothing is written.
    const second = await fetchNow(ctx, tenant.slug, feed.id);
    assert.deepEqual(
      [second.status, second.http_status, second.events_added, second.events_total],
      ['not_modified', 304, 0, 10],
    );
    assert.equal(server.requests.filter((r) => r.path === path).at(-1)?.headers['if-none-match'], '"v1"');

    // The feed changes: one event renamed, one dropped, one added, one more occurrence excluded.
    server.routes.set(path, {
      headers: { etag: '"v2"' },
      body: googleCalendar({
        seminarTitle: 'Study skills seminar (room change)',
        withoutOfficeHours: true,
        withGuestLecture: true,
        extraExdate: true,
      }),
    });
    const third = await fetchNow(ctx, tenant.slug, feed.id);
    assert.deepEqual(
      [third.status, third.events_added, third.events_updated, third.events_removed, third.events_total],
      ['ok', 1, 1, 2, 9],
    );
    const after = (await events(ctx, tenant.slug, feed.id)).map((e) => e.summary);
    assert.ok(after.includes('Guest lecture') && after.includes('Study skills seminar (room change)'));
    assert.ok(!after.includes('Open office day'));
    const history = await ctx().admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${feed.id}/fetches`,
    );
    assert.deepEqual(
      history.json().items.map((f: { status: string; trigger: string }) => `${f.trigger}:${f.status}`),
      ['manual:ok', 'manual:not_modified', 'manual:ok'],
    );
    const shown = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${feed.id}`)
    ).json();
    assert.deepEqual([shown.health, shown.last_status, shown.failure_count], ['ok', 'ok', 0]);
  });

  test('Last-Modified alone gives If-Modified-Since and a 304', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const path = freshPath('last-modified');
    const lastModified = 'Tue, 01 Sep 2026 05:00:00 GMT';
    server.routes.set(path, { headers: { 'last-modified': lastModified }, body: moodleCalendar() });
    const feed = await addFeed(ctx, tenant.slug, server.url(path));
    assert.equal((await fetchNow(ctx, tenant.slug, feed.id)).status, 'ok');
    assert.equal((await fetchNow(ctx, tenant.slug, feed.id)).status, 'not_modified');
    assert.equal(
      server.requests.filter((r) => r.path === path).at(-1)?.headers['if-modified-since'],
      lastModified,
    );
  });

  test('Outlook / Exchange: Windows zone names, with and without a VTIMEZONE block', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const { feed } = await servedFeed(ctx, tenant.slug, 'outlook', { body: outlookCalendar() });
    assert.equal((await fetchNow(ctx, tenant.slug, feed.id)).events_added, 6);
    assert.deepEqual((await events(ctx, tenant.slug, feed.id)).map(brief), [
      '2026-09-24T00:00:00.000Z..2026-09-24T01:00:00.000Z confirmed Tutorial group B',
      '2026-10-01T00:00:00.000Z..2026-10-01T01:00:00.000Z confirmed Tutorial group B',
      '2026-10-02..2026-10-03 confirmed Census date',
      '2026-10-07T23:00:00.000Z..2026-10-08T00:00:00.000Z confirmed Tutorial group B',
      '2026-10-14T23:00:00.000Z..2026-10-15T00:00:00.000Z confirmed Tutorial group B',
      '2026-11-10T17:00:00.000Z..2026-11-10T17:30:00.000Z confirmed Advising drop-in',
    ]);
  });

  test('Apple iCloud: multi-day all-day event, DURATION, a cancelled occurrence across the end of daylight time', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const { feed } = await servedFeed(ctx, tenant.slug, 'icloud', { body: icloudCalendar() });
    await fetchNow(ctx, tenant.slug, feed.id);
    const listed = await events(ctx, tenant.slug, feed.id);
    assert.deepEqual(listed.map(brief), [
      '2026-09-24..2026-09-29 confirmed Welcome week 🎉',
      '2026-10-28T01:00:00.000Z..2026-10-28T03:00:00.000Z confirmed Peer mentoring',
      '2026-11-04T02:00:00.000Z..2026-11-04T04:00:00.000Z cancelled Peer mentoring',
      '2026-11-11T02:00:00.000Z..2026-11-11T04:00:00.000Z confirmed Peer mentoring',
    ]);
    // A window inside the multi-day event still finds it.
    assert.deepEqual(
      (await events(ctx, tenant.slug, feed.id, '2026-09-26', '2026-09-27')).map((e) => e.summary),
      ['Welcome week 🎉'],
    );
  });

  test('Moodle export: UTC times, folds that split multi-byte characters, escaped text', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const { feed } = await servedFeed(ctx, tenant.slug, 'moodle', { body: moodleCalendar() });
    await fetchNow(ctx, tenant.slug, feed.id);
    const listed = await events(ctx, tenant.slug, feed.id);
    assert.equal(listed[0].summary, 'Essai 1 est à remettre');
    assert.equal(
      listed[0].description,
      'Submit your réflexion écrite (1 500 mots) via the course page. Les travaux rendus après la date limite perdent 5 % par jour; contactez le secrétariat pour toute prolongation, merci. Ça commence bientôt — 日本語の説明もあります。',
    );
    assert.deepEqual(
      [listed[0].start, listed[0].end],
      ['2026-10-15T21:59:00.000Z', '2026-10-15T21:59:00.000Z'],
    );
    assert.equal(listed[1].description, null);
  });

  test('bad feeds end as failed fetches with a readable reason; stored events stay; the service keeps answering', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const { path, feed } = await servedFeed(ctx, tenant.slug, 'turns-bad', { body: googleCalendar() });
    assert.equal((await fetchNow(ctx, tenant.slug, feed.id)).status, 'ok');
    const stored = await events(ctx, tenant.slug, feed.id);
    const huge = Buffer.concat([
      googleCalendar().subarray(0, 100),
      Buffer.alloc(TEST_LIMITS.maxBytes + 10, 0x41),
    ]);
    const cases: [string, Parameters<typeof server.routes.set>[1], RegExp, number | null][] = [
      [
        'HTML page',
        {
          headers: { 'content-type': 'text/html' },
          body: '<!DOCTYPE html><html><body>Please sign in</body></html>',
        },
        /HTML page, not an iCalendar file/,
        200,
      ],
      ['empty body', { body: '' }, /the response was empty/, 200],
      ['cut-off body', 'truncate', /closed before the whole calendar arrived|truncated/, 200],
      ['missing END:VCALENDAR', { body: googleCalendar().subarray(0, 600) }, /truncated/, 200],
      ['huge calendar', { body: huge }, /too large/, 200],
      [
        'huge calendar, no length',
        (_req, _n) => ({ headers: { 'transfer-encoding': 'chunked' }, body: huge }),
        /too large/,
        200,
      ],
      ['404', { status: 404, body: 'nope' }, /HTTP 404/, 404],
      ['500', { status: 500, body: 'oops' }, /HTTP 500/, 500],
      [
        'redirects forever',
        { status: 302, headers: { location: path } },
        /too many redirects: more than 5 hops/,
        302,
      ],
      [
        'not a calendar',
        { headers: { 'content-type': 'application/json' }, body: '{"events":[]}' },
        /not an iCalendar file/,
        200,
      ],
    ];
    for (const [name, answer, reason, status] of cases) {
      server.routes.set(path, answer);
      const record = await fetchNow(ctx, tenant.slug, feed.id);
      assert.equal(record.status, 'failed', name);
      assert.match(record.error, reason, name);
      assert.equal(record.http_status, status, name);
      assert.deepEqual([record.events_added, record.events_updated, record.events_removed], [0, 0, 0], name);
      assert.deepEqual(await events(ctx, tenant.slug, feed.id), stored, name);
    }

    // A server that never answers: the fetch gives up at the time limit while other requests are served.
    server.routes.set(path, 'hang');
    const started = performance.now();
    const pending = fetchNow(ctx, tenant.slug, feed.id);
    const meanwhile = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/calendar-feeds`);
    assert.equal(meanwhile.statusCode, 200);
    assert.ok(performance.now() - started < TEST_LIMITS.timeoutMs, 'answered while the fetch hangs');
    const hung = await pending;
    assert.equal(hung.status, 'failed');
    assert.match(hung.error, /no complete response within 1\.5 s \(time limit\)/);
    assert.deepEqual(await events(ctx, tenant.slug, feed.id), stored);

    const shown = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${feed.id}`)
    ).json();
    assert.equal(shown.health, 'failing');
    assert.equal(shown.failure_count, cases.length + 1);
    assert.match(shown.last_error, /time limit/);
  });

  test('failing feeds back off exponentially and recover on success', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const { path, feed } = await servedFeed(ctx, tenant.slug, 'backoff', { status: 500 });
    const base = `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${feed.id}`;
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await fetchNow(ctx, tenant.slug, feed.id);
      const shown = (await ctx().admin('GET', base)).json();
      delays.push((Date.parse(shown.next_fetch_at) - ctx().clock.now().getTime()) / 60_000);
    }
    // random() is 0 in these tests: the low edge of the +-10% jitter.
    assert.deepEqual(delays, [54, 108, 216]);
    const failing = (await ctx().admin('GET', base)).json();
    assert.equal(failing.failing_since, ctx().clock.now().toISOString());
    server.routes.set(path, { body: moodleCalendar() });
    await fetchNow(ctx, tenant.slug, feed.id);
    const healthy = (await ctx().admin('GET', base)).json();
    assert.deepEqual(
      [healthy.health, healthy.failure_count, healthy.last_error, healthy.failing_since],
      ['ok', 0, null, null],
    );
    assert.equal(Date.parse(healthy.next_fetch_at) - ctx().clock.now().getTime(), 60 * 60_000);
  });

  test('redirects are followed (each hop checked); a hop to a private or metadata address is refused', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const target = freshPath('redirect-target');
    const hop1 = freshPath('hop1');
    const hop2 = freshPath('hop2');
    server.routes.set(target, { body: moodleCalendar() });
    server.routes.set(hop1, { status: 301, headers: { location: hop2 } });
    server.routes.set(hop2, { status: 307, headers: { location: server.url(target) } });
    const feed = await addFeed(ctx, tenant.slug, server.url(hop1));
    assert.equal((await fetchNow(ctx, tenant.slug, feed.id)).status, 'ok');
    for (const [location, reason] of [
      [
        'http://10.0.0.1/calendar.ics',
        /refused: 10\.0\.0\.1 is a private network address, which the service does not call \(redirect 1/,
      ],
      [
        'https://169.254.169.254/latest/meta-data/',
        /refused: 169\.254\.169\.254 is a link-local address, which the service does not call/,
      ],
      ['https://[::ffff:192.168.0.1]/x.ics', /refused: 192\.168\.0\.1 is a private network address/],
      ['https://0x0a000001/x.ics', /refused: 10\.0\.0\.1 is a private network address/],
    ] as const) {
      const { feed: refused } = await servedFeed(ctx, tenant.slug, 'to-private', {
        status: 302,
        headers: { location },
      });
      const record = await fetchNow(ctx, tenant.slug, refused.id);
      assert.equal(record.status, 'failed');
      assert.match(record.error, reason);
    }
  });

  test('a feed being fetched is not fetched again at once (409)', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const feed = await addFeed(ctx, tenant.slug, server.url(freshPath('busy')));
    const claimed = await claimFeed(refreshDepsOf(ctx().deps), tenant.institutionId, feed.id);
    assert.ok(claimed);
    const res = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${feed.id}/fetch`,
    );
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error, 'fetch_in_progress');
  });

  test('the worker fetches due feeds on schedule; two workers never fetch one feed twice at once', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const paths = [freshPath('w'), freshPath('w'), freshPath('w')];
    for (const p of paths) server.routes.set(p, { headers: { etag: `"${p}"` }, body: icloudCalendar() });
    for (const p of paths) await addFeed(ctx, tenant.slug, server.url(p));
    const worker = () =>
      createCalendarFetchWorker({
        db: ctx().db,
        clock: ctx().clock,
        policy: { allowLoopback: true },
        lookup: loopbackLookup,
        limits: TEST_LIMITS,
        institutionIds: [tenant.institutionId],
        concurrency: 10,
        random: () => 0,
      });
    const [a, b] = [worker(), worker()];
    const rounds = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    assert.equal(
      rounds.reduce((n, r) => n + r.claimed, 0),
      3,
    );
    for (const p of paths) assert.equal(server.requests.filter((r) => r.path === p).length, 1, p);
    assert.equal((await events(ctx, tenant.slug)).length, 12);
    // Nothing is due until the refresh interval has passed.
    assert.equal((await a.runOnce()).claimed, 0);
    ctx().clock.advance(61 * 60_000);
    const later = await a.runOnce();
    assert.deepEqual([later.claimed, later.not_modified], [3, 3]);
    ctx().clock.advance(-61 * 60_000);
  });
});
