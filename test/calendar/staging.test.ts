// A fetch's writes are staged in short statements and applied in one short transaction
// (src/domain/calendar/store.ts): a reader meanwhile sees the stored occurrences or the new
// ones, never half a feed; a fetch that fails while applying leaves the stored ones as they were
// and no staged rows behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import {
  claimFeed,
  type RefreshDeps,
  refreshDepsOf,
  refreshFeed,
} from '../../src/domain/calendar/refresh.ts';
import { seedTenant } from '../helpers/app.ts';
import { describeCalendar, sharedFeedServer } from './helpers.ts';

const server = sharedFeedServer();

/** Single events `ev-<i>` for i in [from, to), each titled with the feed's version. */
function versionFeed(version: string, from: number, to: number): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Staging//EN'];
  for (let i = from; i < to; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    lines.push(
      'BEGIN:VEVENT',
      `UID:ev-${i}@staging.example.edu`,
      'DTSTAMP:20260801T000000Z',
      `DTSTART:202609${day}T100000Z`,
      `DTEND:202609${day}T110000Z`,
      `SUMMARY:${version} ${i}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

interface Seen {
  total: number;
  v1: number;
  v2: number;
}

const seenSql = `SELECT count(*)::int AS total, count(*) FILTER (WHERE summary LIKE 'v1 %')::int AS v1,
  count(*) FILTER (WHERE summary LIKE 'v2 %')::int AS v2 FROM calendar_events WHERE feed_id = $1`;

async function seen(db: Db, feedId: string): Promise<Seen> {
  return (await db.query<Seen>(seenSql, [feedId])).rows[0];
}

async function staged(db: Db, feedId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM calendar_event_changes WHERE feed_id = $1',
    [feedId],
  );
  return rows[0].n;
}

/** Fetches the feed once, as the fetch worker does, on `deps`. */
async function fetchOnce(deps: RefreshDeps, institutionId: string, feedId: string) {
  const claimed = await claimFeed(deps, institutionId, feedId);
  assert.ok(claimed, 'the feed is claimable');
  return refreshFeed(deps, claimed, 'manual');
}

describeCalendar(
  'calendar fetch: staged writes',
  (ctx) => {
    // v1: ev-0..1499; v2: ev-500..2499, retitled (500 removed, 1000 updated, 1000 added).
    const V1 = { total: 1500, v1: 1500, v2: 0 };
    const V2 = { total: 2000, v1: 0, v2: 2000 };

    async function feedAtV1(path: string) {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      server.routes.set(path, { body: versionFeed('v1', 0, 1500) });
      const { rows } = await ctx().db.query<{ id: string }>(
        'INSERT INTO calendar_feeds (institution_id, url) VALUES ($1, $2) RETURNING id',
        [tenant.institutionId, server.url(path)],
      );
      const feedId = rows[0].id;
      const first = await fetchOnce(refreshDepsOf(ctx().deps), tenant.institutionId, feedId);
      assert.equal(first?.status, 'ok', first?.error ?? '');
      assert.deepEqual(await seen(ctx().db, feedId), V1);
      server.routes.set(path, { body: versionFeed('v2', 500, 2500) });
      return { institutionId: tenant.institutionId, feedId };
    }

    test('a reader during the fetch sees the old feed or the new one, never half of either', async () => {
      const { institutionId, feedId } = await feedAtV1('/staging-reader.ics');
      const deps = refreshDepsOf(ctx().deps);
      const observed: Seen[] = [];
      let done = false;
      const reader = (async () => {
        while (!done) {
          observed.push(await seen(ctx().db, feedId));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      const record = await fetchOnce(deps, institutionId, feedId).finally(() => {
        done = true;
      });
      await reader;
      assert.equal(record?.status, 'ok', record?.error ?? '');
      assert.deepEqual(
        [record?.events_added, record?.events_updated, record?.events_removed, record?.events_total],
        [1000, 1000, 500, 2000],
      );
      assert.ok(observed.length > 1, `the reader read during the fetch (${observed.length} times)`);
      for (const view of observed)
        assert.ok(
          [V1, V2].some((whole) => isSame(whole, view)),
          JSON.stringify(view),
        );
      assert.deepEqual(await seen(ctx().db, feedId), V2);
      assert.equal(await staged(ctx().db, feedId), 0, 'nothing staged is left behind');
    });

    test('a fetch that fails while applying leaves the stored events as they were', async () => {
      const { institutionId, feedId } = await feedAtV1('/staging-fails.ics');
      // The real database, whose apply fails at its insert, after its delete and update ran.
      const db = ctx().db;
      const failing: Db = {
        ...db,
        transaction: (fn) =>
          db.transaction((tx) =>
            fn({
              query: (sql, params) => {
                if (sql.includes('INSERT INTO calendar_events ')) throw new Error('disk full');
                return tx.query(sql, params);
              },
            }),
          ),
      };
      const record = await fetchOnce({ ...refreshDepsOf(ctx().deps), db: failing }, institutionId, feedId);
      assert.equal(record?.status, 'failed');
      assert.match(record?.error ?? '', /the events could not be stored: disk full/);
      assert.deepEqual(await seen(db, feedId), V1, 'the stored events are the old feed, whole');
      assert.equal(await staged(db, feedId), 0, "the failed fetch's staged writes are gone");
      // The next fetch applies the new feed whole.
      const next = await fetchOnce(refreshDepsOf(ctx().deps), institutionId, feedId);
      assert.equal(next?.status, 'ok', next?.error ?? '');
      assert.deepEqual(await seen(db, feedId), V2);
    });

    test('a fetch whose claim was lost writes nothing and leaves nothing staged', async () => {
      const { institutionId, feedId } = await feedAtV1('/staging-lost.ics');
      const deps = refreshDepsOf(ctx().deps);
      const claimed = await claimFeed(deps, institutionId, feedId);
      assert.ok(claimed);
      // Another fetch takes the feed over (as after an expired lease) before this one records.
      await ctx().db.query('UPDATE calendar_feeds SET lease_token = gen_random_uuid() WHERE id = $1', [
        feedId,
      ]);
      assert.equal(await refreshFeed(deps, claimed, 'manual'), null);
      assert.deepEqual(await seen(ctx().db, feedId), V1);
      assert.equal(await staged(ctx().db, feedId), 0);
    });
  },
  { limits: { maxBytes: 2 * 1024 * 1024 } },
);

const isSame = (a: Seen, b: Seen) => a.total === b.total && a.v1 === b.v1 && a.v2 === b.v2;
