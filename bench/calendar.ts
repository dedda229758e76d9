// A 10,000-event calendar feed with weekly recurrences (COUNT=10 each: 100,000 occurrences, in
// a zone defined by a VTIMEZONE block), fetched from a local HTTP server, parsed, expanded and
// stored, as the worker does it. Measured: the first fetch (every occurrence new), a fetch of
// the same body without validators (parsed again, nothing written), a fetch where a tenth of
// the events changed (updates), and a conditional fetch answered 304. Baselines measured in
// the same run: parsing and expanding alone (no network, no database), and the floor of
// storing: one INSERT ... SELECT of the same rows into an unindexed copy of the table.
// PostgreSQL when a database is given (the figures quoted in docs/calendar-feeds.md), then PGlite.
// Then the stall part (calendar-stall.ts): the largest feeds while the event loop is watched.

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../src/db/db.ts';
import { occurrenceRow } from '../src/domain/calendar/diff.ts';
import { expandCalendar } from '../src/domain/calendar/expand.ts';
import { decodeCalendar } from '../src/domain/calendar/ics-text.ts';
import { type ParseEvent, parseChannel } from '../src/domain/calendar/parse-job.ts';
import { claimFeed, type RefreshDeps, refreshFeed } from '../src/domain/calendar/refresh.ts';
import { DEFAULT_LIMITS, expansionWindow } from '../src/domain/calendar/schedule.ts';
import { LONDON_VTIMEZONE } from '../test/calendar/london-vtimezone.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { benchStall } from './calendar-stall.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const EVENTS = size(10_000, 50);
const WEEKS = 10;
const NOW = new Date('2026-09-01T06:00:00Z');

function feedBody(version: number): Buffer {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Bench//Timetable//EN', ...LONDON_VTIMEZONE];
  for (let i = 0; i < EVENTS; i++) {
    const day = 7 + (i % 5);
    const hour = 8 + (i % 10);
    const changed = version > 0 && i % 10 === 0;
    lines.push(
      'BEGIN:VEVENT',
      `UID:class-${i}@timetable.example.edu`,
      `DTSTART;TZID=Europe/London:202609${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}0000`,
      `DTEND;TZID=Europe/London:202609${String(day).padStart(2, '0')}T${String(hour + 1).padStart(2, '0')}0000`,
      `RRULE:FREQ=WEEKLY;COUNT=${WEEKS}`,
      `SUMMARY:Module ${Math.floor(i / 4)} – ${changed ? 'Tutorial (room change)' : 'Lecture'}`,
      `LOCATION:Building ${i % 30}\\, Room ${i % 200}`,
      'DESCRIPTION:Weekly class. Bring your notes.',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

async function storeFloor(db: Db, rows: object[]): Promise<number> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS floor_events (LIKE calendar_events INCLUDING DEFAULTS INCLUDING IDENTITY)`,
  );
  await db.exec('TRUNCATE floor_events');
  const json = JSON.stringify(rows);
  const started = performance.now();
  await db.transaction((tx) =>
    tx.query(
      `INSERT INTO floor_events (institution_id, feed_id, uid, recurrence_id, starts_at, ends_at, all_day, summary,
         location, description, status, content_hash)
       SELECT institution_id, feed_id, uid, recurrence_id, starts_at, ends_at, all_day, summary, location, description,
         status, content_hash
       FROM jsonb_to_recordset($1::jsonb) AS r(institution_id uuid, feed_id uuid, uid text, recurrence_id text,
         starts_at timestamptz, ends_at timestamptz, all_day boolean, summary text, location text, description text,
         status text, content_hash text)`,
      [json],
    ),
  );
  return performance.now() - started;
}

async function newInstitution(db: Db): Promise<string> {
  // Names are unique too (the stall part adds a second institution).
  const slug = `bench-${randomBytes(4).toString('hex')}`;
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO institutions (slug, name) VALUES ($1, $2) RETURNING id',
    [slug, `Bench ${slug}`],
  );
  return rows[0].id;
}

async function benchFirstFetch(kind: 'pglite' | 'postgres', db: Db) {
  let body = feedBody(0);
  let etag = '"v0"';
  const server = http.createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/calendar', etag });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/timetable.ics`;
  try {
    const institutionId = await newInstitution(db);
    const { rows: feeds } = await db.query<{ id: string }>(
      'INSERT INTO calendar_feeds (institution_id, url) VALUES ($1, $2) RETURNING id',
      [institutionId, url],
    );
    const feedId = feeds[0].id;
    const deps: RefreshDeps = {
      db,
      clock: { now: () => NOW },
      policy: { allowLoopback: true },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 120_000 },
      random: () => 0,
    };
    const fetchOnce = async (label: string, clearValidators = false) => {
      if (clearValidators)
        await db.query('UPDATE calendar_feeds SET etag = NULL, last_modified = NULL WHERE id = $1', [feedId]);
      const claimed = await claimFeed(deps, institutionId, feedId);
      if (!claimed) throw new Error('feed not claimable');
      let parseMs: number | undefined;
      const onParse = (event: unknown) => {
        parseMs = (event as ParseEvent).summary?.parseMs ?? parseMs;
      };
      parseChannel.subscribe(onParse);
      const started = performance.now();
      const record = await refreshFeed(deps, claimed, 'manual');
      const ms = performance.now() - started;
      parseChannel.unsubscribe(onParse);
      process.stdout.write(
        `${kind} ${label}: ${Math.round(ms)} ms (${record?.status}, +${record?.events_added} ~${record?.events_updated} -${record?.events_removed}, ${record?.events_total} stored` +
          `${parseMs === undefined ? '' : `; decode + parse + expand in the worker ${parseMs} ms`}${record?.error ? `, ${record.error}` : ''})\n`,
      );
      return ms;
    };

    // Baseline 1: parse and expand alone.
    const parseStarted = performance.now();
    const expanded = expandCalendar(decodeCalendar(body), {
      now: NOW.getTime(),
      ...expansionWindow(NOW, DEFAULT_LIMITS),
      maxOccurrences: DEFAULT_LIMITS.maxOccurrences,
      maxSteps: DEFAULT_LIMITS.maxSteps,
      maxStepsPerSeries: DEFAULT_LIMITS.maxStepsPerSeries,
    });
    const parseMs = performance.now() - parseStarted;
    process.stdout.write(
      `${kind} feed: ${EVENTS} events, ${(body.length / 1024 / 1024).toFixed(1)} MB, ${expanded.occurrences.length} occurrences\n`,
    );
    process.stdout.write(`${kind} baseline, decode + parse + expand only: ${Math.round(parseMs)} ms\n`);
    // Baseline 2: one bare INSERT of the same rows.
    const rows = expanded.occurrences.map((o) => ({
      institution_id: institutionId,
      feed_id: feedId,
      ...occurrenceRow(o),
    }));
    const floorMs = await storeFloor(db, rows);
    process.stdout.write(
      `${kind} baseline, one INSERT of the rows (unindexed copy): ${Math.round(floorMs)} ms\n`,
    );

    const first = await fetchOnce('first fetch (all new)');
    await fetchOnce('same body, no validators (nothing written)', true);
    body = feedBody(1);
    etag = '"v1"';
    await fetchOnce('a tenth of the events changed');
    await fetchOnce('conditional request (304)');
    process.stdout.write(
      `${kind} first fetch / (parse + insert floor): ${(first / (parseMs + floorMs)).toFixed(2)}x\n`,
    );
  } finally {
    server.close();
  }
}

/** Which parts run: `npm run bench calendar` both, `calendar-fetch` or `calendar-stall` one. */
export interface Parts {
  fetch: boolean;
  stall: boolean;
}

async function benchKind(kind: 'pglite' | 'postgres', databaseUrl: string | undefined, parts: Parts) {
  const db =
    kind === 'pglite'
      ? await openScratchPglite()
      : await openScratchPostgres(databaseUrl!, { prefix: 'bench' });
  try {
    if (parts.fetch) await benchFirstFetch(kind, db);
    if (parts.stall) await benchStall(kind, db, await newInstitution(db));
  } finally {
    await db.close();
  }
}

export function calendarBench(parts: Parts) {
  return async (options: BenchOptions): Promise<void> => {
    if (options.databaseUrl) await benchKind('postgres', options.databaseUrl, parts);
    await benchKind('pglite', undefined, parts);
  };
}

export const run = calendarBench({ fetch: true, stall: true });
