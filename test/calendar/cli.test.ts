// ssp calendar-feeds and ssp calendar-events against a real listening server (PGlite).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { runSsp } from '../helpers/cli.ts';
import { icloudCalendar } from './calendars.ts';
import { type CalendarTestContext, type FeedServer, startCalendarApp, startFeedServer } from './helpers.ts';

describe('ssp calendar-feeds and calendar-events (CLI)', () => {
  let ctx: CalendarTestContext;
  let feeds: FeedServer;
  let url: string;
  before(async () => {
    ctx = await startCalendarApp('pglite');
    url = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    feeds = await startFeedServer();
  });
  after(async () => {
    await feeds.close();
    await ctx.close();
  });
  const ssp = async (...args: string[]) => JSON.parse(await runSsp(url, args));

  test('add, update, fetch, history, events, delete', async () => {
    const tenant = await seedTenant(ctx, { rosterSecret: false });
    feeds.routes.set('/campus.ics', { body: icloudCalendar() });
    const feed = await ssp(
      'calendar-feeds',
      'add',
      tenant.slug,
      feeds.url('/campus.ics'),
      '--name',
      'Campus life',
    );
    assert.equal(feed.name, 'Campus life');
    const updated = await ssp('calendar-feeds', 'update', tenant.slug, feed.id, '--refresh', '30');
    assert.equal(updated.refresh_minutes, 30);
    const record = await ssp('calendar-feeds', 'fetch', tenant.slug, feed.id);
    assert.deepEqual([record.status, record.events_added], ['ok', 4]);
    assert.equal((await ssp('calendar-feeds', 'fetches', tenant.slug, feed.id)).items.length, 1);
    assert.equal((await ssp('calendar-feeds', 'list', tenant.slug)).items[0].health, 'ok');
    const listed = await ssp('calendar-events', tenant.slug, '--from', '2026-10-01', '--to', '2026-12-01');
    assert.deepEqual(
      listed.items.map((e: { status: string }) => e.status),
      ['confirmed', 'cancelled', 'confirmed'],
    );
    assert.deepEqual(await ssp('calendar-feeds', 'delete', tenant.slug, feed.id), { deleted: true });
  });
});
