// Archiving stops an institution's background work (docs/archiving.md): its due calendar feeds
// are not fetched and its webhook deliveries are not attempted while it is archived, each
// worker's claim skipping it in the one statement that claims a batch; another institution's
// work goes on beside it, and on restore what fell due meanwhile goes on the next round.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCalendarFetchWorker } from '../../src/workers/calendar-fetch.ts';
import { ics } from '../calendar/calendars.ts';
import {
  type CalendarTestContext,
  describeCalendar,
  loopbackLookup,
  sharedFeedServer,
  TEST_LIMITS,
} from '../calendar/helpers.ts';
import { type SeededTenant, seedTenant } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, workerFor } from '../helpers/webhooks.ts';

const server = sharedFeedServer();
const receiver = receiverPool();

const calendar = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Archiving//EN',
  'BEGIN:VEVENT',
  'UID:welcome@example.edu',
  'DTSTART:20260907T080000Z',
  'DTEND:20260907T090000Z',
  'SUMMARY:Welcome lecture',
  'END:VEVENT',
  'END:VCALENDAR',
]);

let paths = 0;

async function addFeed(ctx: CalendarTestContext, tenant: SeededTenant): Promise<string> {
  const path = `/archiving-${++paths}.ics`;
  server.routes.set(path, { body: calendar });
  const res = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/calendar-feeds`, {
    url: server.url(path),
  });
  assert.equal(res.statusCode, 201, res.body);
  return path;
}

async function setArchived(ctx: CalendarTestContext, tenant: SeededTenant, archived: boolean) {
  const res = await ctx.admin(
    'POST',
    `/admin/v1/institutions/${tenant.slug}/${archived ? 'archive' : 'restore'}`,
  );
  assert.equal(res.statusCode, 200, res.body);
}

const hits = (path: string) => server.requests.filter((r) => r.path === path).length;

describeCalendar('archived institutions: background work', (ctx) => {
  test("an archived institution's due calendar feeds are not fetched, and are on the first round after restore", async () => {
    const archived = await seedTenant(ctx(), { rosterSecret: false });
    const active = await seedTenant(ctx(), { rosterSecret: false });
    const archivedFeed = await addFeed(ctx(), archived);
    const activeFeed = await addFeed(ctx(), active);
    await setArchived(ctx(), archived, true);
    const worker = createCalendarFetchWorker({
      db: ctx().db,
      clock: ctx().clock,
      policy: { allowLoopback: true },
      lookup: loopbackLookup,
      limits: TEST_LIMITS,
      institutionIds: [archived.institutionId, active.institutionId],
      concurrency: 10,
      random: () => 0,
    });
    const round = await worker.runOnce();
    assert.equal(round.claimed, 1, 'only the active institution’s feed');
    assert.equal(hits(activeFeed), 1);
    assert.equal(hits(archivedFeed), 0, 'the archived institution’s feed was not fetched');
    assert.equal((await worker.runOnce()).claimed, 0, 'still nothing while archived');

    await setArchived(ctx(), archived, false);
    const resumed = await worker.runOnce();
    assert.equal(resumed.claimed, 1);
    assert.equal(hits(archivedFeed), 1, 'fetched on the first round after restore');
  });

  test("an archived institution's webhook deliveries are not attempted; they wait, pending, and go out on restore", async () => {
    const archived = await seedTenant(ctx(), { rosterSecret: false });
    const active = await seedTenant(ctx(), { rosterSecret: false });
    const archivedReceiver = await receiver({ status: 200 });
    const activeReceiver = await receiver({ status: 200 });
    await addEndpoint(ctx(), archived, { url: archivedReceiver.url });
    await addEndpoint(ctx(), active, { url: activeReceiver.url });
    const clock = testClock();
    for (let i = 0; i < 3; i++) {
      await emitEvent(ctx(), archived, clock);
      await emitEvent(ctx(), active, clock);
    }
    await setArchived(ctx(), archived, true);
    const worker = workerFor(ctx(), archived, clock, {
      institutionIds: [archived.institutionId, active.institutionId],
    });
    try {
      const claimed = await worker.claim(256);
      assert.deepEqual(
        [...new Set(claimed.map((c) => c.institution_id))],
        [active.institutionId],
        'one claim, only the active institution’s deliveries',
      );
      await worker.deliver(claimed);
      assert.equal((await worker.runOnce()).claimed, 0, 'nothing of the archived institution is claimed');
      assert.equal(archivedReceiver.received.length, 0, 'no attempt while archived');
      assert.equal(activeReceiver.received.length, 3);
      const { rows } = await ctx().db.query<{ state: string; attempts: number }>(
        'SELECT state, attempts FROM webhook_deliveries WHERE institution_id = $1',
        [archived.institutionId],
      );
      assert.deepEqual(
        rows.map((r) => [r.state, r.attempts]),
        [
          ['pending', 0],
          ['pending', 0],
          ['pending', 0],
        ],
        'they wait, neither failed nor counted as attempts',
      );

      await setArchived(ctx(), archived, false);
      assert.equal((await worker.runOnce()).claimed, 3, 'restored: its deliveries go out');
      assert.equal(archivedReceiver.received.length, 3);
    } finally {
      await worker.close();
    }
  });
});
