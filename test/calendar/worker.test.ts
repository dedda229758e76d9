// The calendar parse worker: a feed is parsed in a worker thread, never on the event loop that
// answers requests (seen through the 'ssp.calendar.parse' diagnostics channel and /health/live
// answering while it runs); a feed over the stored-occurrence cap is stored truncated, the
// upcoming occurrences first, and says so in the API and the console; a feed over the worker's
// memory or time limit fails as that feed's fetch with its reason, the stored events unchanged,
// the server answering. Not timed: these assert the mechanism (the stall figure is the
// benchmark's, bench/calendar-stall.ts).
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { test } from 'node:test';
import { threadId } from 'node:worker_threads';
import { fetchFeedNow } from '../../src/domain/calendar/fetch-now.ts';
import { type ParseEvent, parseChannel } from '../../src/domain/calendar/parse-job.ts';
import { seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';
import { googleCalendar, ics } from './calendars.ts';
import { describeCalendar, loopbackLookup, sharedFeedServer, testResolver } from './helpers.ts';
import { singleEventsFeed } from './large-feeds.ts';

const server = sharedFeedServer();

let pathCounter = 0;
const freshPath = (name: string) => `/${name}-${++pathCounter}.ics`;

/** `series` daily series from March with no end: about 580 occurrences each in the window. */
function dailySeries(series: number): Buffer {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Daily//EN'];
  for (let i = 0; i < series; i++)
    lines.push(
      'BEGIN:VEVENT',
      `UID:daily-${i}@example.edu`,
      `DTSTART:20260301T${String(8 + (i % 10)).padStart(2, '0')}0000Z`,
      'DURATION:PT1H',
      'RRULE:FREQ=DAILY',
      `SUMMARY:Daily ${i}`,
      'END:VEVENT',
    );
  lines.push('END:VCALENDAR');
  return ics(lines);
}

const CAP = 500;

describeCalendar(
  'calendar parse worker',
  (ctx) => {
    test('the parse runs in a worker thread while /health/live answers; a feed over the cap is stored truncated, upcoming first, and says so', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const path = freshPath('daily');
      server.routes.set(path, { body: dailySeries(120) });
      const base = `/admin/v1/institutions/${tenant.slug}/calendar-feeds`;
      const created = await ctx().admin('POST', base, { url: server.url(path) });
      assert.equal(created.statusCode, 201, created.body);
      const feed = created.json();

      const seen: ParseEvent[] = [];
      let parsing = false;
      const onParse = (event: unknown) => {
        seen.push(event as ParseEvent);
        parsing = (event as ParseEvent).stage === 'start';
      };
      diagnosticsChannel.subscribe(parseChannel.name, onParse);
      let answeredWhileParsing = 0;
      try {
        let done = false;
        const fetching = ctx()
          .admin('POST', `${base}/${feed.id}/fetch`)
          .finally(() => {
            done = true;
          });
        while (!done) {
          const live = await ctx().request({ method: 'GET', url: '/health/live' });
          assert.equal(live.statusCode, 200);
          if (parsing) answeredWhileParsing++;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const res = await fetching;
        assert.equal(res.statusCode, 200, res.body);
        const record = res.json();
        assert.equal(record.status, 'ok', record.error);
        assert.equal(record.events_total, CAP);
        assert.equal(record.events_added, CAP);
        assert.ok(record.events_truncated > 60_000, `truncated ${record.events_truncated}`);

        // Parsed in a worker thread, not this (the main) thread, while requests were answered.
        const [start, parsed] = seen;
        assert.deepEqual(
          seen.map((e) => e.stage),
          ['start', 'parsed'],
        );
        assert.notEqual(start.threadId, threadId);
        assert.equal(parsed.threadId, start.threadId);
        assert.equal(parsed.summary?.threadId, start.threadId);
        assert.equal(parsed.summary?.truncated, record.events_truncated);
        assert.ok(answeredWhileParsing > 0, '/health/live answered while the feed was parsed');

        // The feed says so; the stored occurrences are the upcoming ones (the clock: 2026-09-01 06:00Z).
        const shown = (await ctx().admin('GET', `${base}/${feed.id}`)).json();
        assert.equal(shown.health, 'ok');
        assert.equal(shown.events_truncated, record.events_truncated);
        const listed = await ctx().admin(
          'GET',
          `/admin/v1/institutions/${tenant.slug}/calendar-events?from=2026-01-01&to=2027-06-01&limit=1000&feed_id=${feed.id}`,
        );
        const starts = (listed.json().items as { start: string }[]).map((e) => e.start);
        assert.equal(starts.length, CAP);
        assert.ok(starts[0] >= '2026-09-01T08:00:00.000Z', starts[0]);
        assert.ok(starts[CAP - 1] < '2026-09-06', starts[CAP - 1]);

        // Fetched again unchanged: the stored keys are read back (in keyset pages) and nothing is written.
        const again = (await ctx().admin('POST', `${base}/${feed.id}/fetch`)).json();
        assert.deepEqual(
          [again.status, again.events_added, again.events_updated, again.events_removed, again.events_total],
          ['ok', 0, 0, 0, CAP],
        );
        assert.equal(again.events_truncated, record.events_truncated);

        const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
        const page = await admin.request('GET', `/console/${tenant.slug}/calendar-feeds/${feed.id}`);
        assert.equal(page.statusCode, 200);
        assert.match(
          page.body,
          new RegExp(`truncated: ${record.events_truncated.toLocaleString('en')} occurrences left out`),
        );
        assert.match(
          page.body,
          new RegExp(`truncated: ${record.events_truncated} occurrences over the limit`),
        );
      } finally {
        diagnosticsChannel.unsubscribe(parseChannel.name, onParse);
      }
    });
  },
  { limits: { maxOccurrences: CAP, maxBytes: 4 * 1024 * 1024 } },
);

describeCalendar(
  'calendar parse worker limits',
  (ctx) => {
    test('a feed over the memory or the time limit fails as its own fetch with the reason; stored events stay; the server answers', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const path = freshPath('grows');
      server.routes.set(path, { body: googleCalendar() });
      const base = `/admin/v1/institutions/${tenant.slug}/calendar-feeds`;
      const feed = (await ctx().admin('POST', base, { url: server.url(path) })).json();
      const fetchNow = async () => {
        const res = await ctx().admin('POST', `${base}/${feed.id}/fetch`);
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const events = async () =>
        (
          await ctx().admin(
            'GET',
            `/admin/v1/institutions/${tenant.slug}/calendar-events?from=2026-01-01&to=2027-06-01&feed_id=${feed.id}`,
          )
        ).json().items;
      // A small calendar fits in the small heap.
      assert.equal((await fetchNow()).status, 'ok');
      const stored = await events();
      assert.ok(stored.length > 0);

      // 20,000 events (3 MB) need more than 16 MB of heap: the worker is stopped, the fetch fails.
      server.routes.set(path, { body: singleEventsFeed(20_000) });
      const record = await fetchNow();
      assert.equal(record.status, 'failed');
      assert.match(record.error, /needs more memory to read than a feed may use \(16 MB; memory limit\)/);
      assert.deepEqual([record.events_added, record.events_removed], [0, 0]);
      assert.deepEqual(await events(), stored);
      const shown = (await ctx().admin('GET', `${base}/${feed.id}`)).json();
      assert.equal(shown.health, 'failing');
      assert.match(shown.last_error, /memory limit/);
      assert.equal((await ctx().request({ method: 'GET', url: '/health/live' })).statusCode, 200);

      // The same feed with room enough but a 0.2 s time limit: stopped at the limit.
      const slow = {
        ...ctx().deps,
        policy: { allowLoopback: true, resolve: testResolver, lookup: loopbackLookup },
        calendarFetch: { limits: { maxBytes: 4 * 1024 * 1024, parseTimeoutMs: 200 } },
      };
      const timedOut = await fetchFeedNow(slow, tenant.institutionId, feed.id);
      assert.equal(timedOut.status, 'failed');
      assert.match(timedOut.error ?? '', /takes longer than 0\.2 s to read \(time limit\)/);
      assert.deepEqual(await events(), stored);
      assert.equal((await ctx().request({ method: 'GET', url: '/health/live' })).statusCode, 200);
    });
  },
  { limits: { parseMemoryMb: 16, maxBytes: 4 * 1024 * 1024 } },
);
