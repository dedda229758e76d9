// One institution's calendar feeds cannot delay or stop another's: four feeds whose recurrence
// rule never matches (each once spun a parse slot for its whole 60 s limit and could take the
// server's memory with it) are fetched in moments with the rule reported, while another
// institution's one-event feed is claimed in the same round and fetched at once; and an
// institution has at most its cap of feeds. Real local HTTP servers serve the feeds; the
// default parse limits (60 s, 512 MB) apply.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCalendarFetchWorker } from '../../src/workers/calendar-fetch.ts';
import { seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';
import { ics } from './calendars.ts';
import { describeCalendar, loopbackLookup, sharedFeedServer } from './helpers.ts';

const server = sharedFeedServer();

let counter = 0;
const spinning = () =>
  ics([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//Spin//EN',
    'BEGIN:VEVENT',
    `UID:spin-${++counter}@example.edu`,
    'DTSTART:20260901T090000Z',
    'DURATION:PT1H',
    'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
    'SUMMARY:Never',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
const oneEvent = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//One//EN',
  'BEGIN:VEVENT',
  'UID:one@example.edu',
  'DTSTART:20260910T090000Z',
  'DTEND:20260910T100000Z',
  'SUMMARY:Open day',
  'END:VEVENT',
  'END:VCALENDAR',
]);

/** Another institution's feed: done within this, whatever the first institution's feeds do. */
const BOUND_MS = 10_000;

describeCalendar('calendar feeds of several institutions', (ctx) => {
  test("four never-matching feeds of one institution do not delay another institution's feed", async () => {
    const busy = await seedTenant(ctx(), { rosterSecret: false });
    const other = await seedTenant(ctx(), { rosterSecret: false });
    const add = async (slug: string, path: string, body: Buffer) => {
      server.routes.set(path, { body });
      const res = await ctx().admin('POST', `/admin/v1/institutions/${slug}/calendar-feeds`, {
        url: server.url(path),
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().id as string;
    };
    const spinners: string[] = [];
    for (let i = 0; i < 4; i++)
      spinners.push(await add(busy.slug, `/spin-${busy.slug}-${i}.ics`, spinning()));
    // Added last: the longest-due feeds are the busy institution's.
    const theirs = await add(other.slug, `/one-${other.slug}.ics`, oneEvent);
    const fetches = async (slug: string, id: string) =>
      (await ctx().admin('GET', `/admin/v1/institutions/${slug}/calendar-feeds/${id}/fetches`)).json().items;

    // The scheduled round: the other institution's feed is claimed with the busy one's.
    const worker = createCalendarFetchWorker({
      db: ctx().db,
      clock: ctx().clock,
      policy: { allowLoopback: true },
      lookup: loopbackLookup,
      institutionIds: [busy.institutionId, other.institutionId],
      random: () => 0,
    });
    let started = performance.now();
    const round = await worker.runOnce();
    const roundMs = performance.now() - started;
    const [record] = await fetches(other.slug, theirs);
    process.stdout.write(
      `# scheduled round of 4 never-matching feeds + 1 other: ${Math.round(roundMs)} ms; the other's fetch ${record?.duration_ms} ms\n`,
    );
    assert.equal(round.claimed, 4);
    assert.equal(record?.status, 'ok', 'the other institution is claimed in the same round');
    assert.equal(record.events_total, 1);
    assert.ok(record.duration_ms < BOUND_MS, `${record.duration_ms} ms`);

    // Every never-matching feed is stored (its event at its start) with the rule reported.
    ctx().clock.advance(2 * 3_600_000);
    await worker.runOnce();
    for (const id of spinners) {
      const [last] = await fetches(busy.slug, id);
      assert.equal(last.status, 'ok', last.error);
      assert.equal(last.events_total, 1);
      assert.equal(last.problems.length, 1);
      assert.match(last.problems[0].problem, /can never match a date.*only its start/);
      assert.equal(last.problems[0].summary, 'Never');
    }

    // The busy institution's feeds fetched again by the worker while the other's admin fetches now.
    ctx().clock.advance(2 * 3_600_000);
    const busyOnly = createCalendarFetchWorker({
      db: ctx().db,
      clock: ctx().clock,
      policy: { allowLoopback: true },
      lookup: loopbackLookup,
      institutionIds: [busy.institutionId],
      random: () => 0,
    });
    const busyRound = busyOnly.runOnce();
    started = performance.now();
    const now = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${other.slug}/calendar-feeds/${theirs}/fetch`,
    );
    const nowMs = performance.now() - started;
    const live = await ctx().request({ method: 'GET', url: '/health/live' });
    assert.equal((await busyRound).claimed, 4);
    process.stdout.write(`# the other's fetch now, during the busy round: ${Math.round(nowMs)} ms\n`);
    assert.equal(now.statusCode, 200, now.body);
    assert.equal(now.json().status, 'ok');
    assert.ok(nowMs < BOUND_MS, `${Math.round(nowMs)} ms`);
    assert.equal(live.statusCode, 200);

    // The feed's page says which event has a problem and why.
    const admin = await personBrowser(ctx(), busy, { roles: ['admin'] });
    const page = await admin.request('GET', `/console/${busy.slug}/calendar-feeds/${spinners[0]}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Events with problems/);
    assert.match(
      page.body,
      /<strong>Never<\/strong> \(UID spin-\d+@example\.edu\): its recurrence rule can never match/,
    );
  });
});

describeCalendar(
  'calendar feeds per institution',
  (ctx) => {
    test('an institution has at most its cap of feeds: one more is 409 calendar_feed_limit_reached; others are not affected', async () => {
      const full = await seedTenant(ctx(), { rosterSecret: false });
      const other = await seedTenant(ctx(), { rosterSecret: false });
      server.routes.set('/cap.ics', { body: oneEvent });
      const add = (slug: string) =>
        ctx().admin('POST', `/admin/v1/institutions/${slug}/calendar-feeds`, { url: server.url('/cap.ics') });
      // Added at once: the count and the insert are one locked step, so the cap holds under a race.
      const added = await Promise.all([1, 2, 3, 4, 5].map(() => add(full.slug)));
      assert.deepEqual(added.map((r) => r.statusCode).sort(), [201, 201, 201, 409, 409]);
      const refused = added.find((r) => r.statusCode === 409)?.json();
      assert.equal(refused.error, 'calendar_feed_limit_reached');
      assert.equal(refused.max, 3);
      assert.match(refused.detail, /at most 3 calendar feeds/);
      assert.equal((await add(other.slug)).statusCode, 201);

      // Deleting one makes room for one.
      const one = added.find((r) => r.statusCode === 201)?.json();
      const base = `/admin/v1/institutions/${full.slug}/calendar-feeds`;
      assert.equal((await ctx().admin('DELETE', `${base}/${one.id}`)).statusCode, 204);
      assert.equal((await add(full.slug)).statusCode, 201);
      assert.equal((await add(full.slug)).statusCode, 409);
    });
  },
  { feedsPerInstitution: 3 },
);
