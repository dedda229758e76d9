// Calendar feed tests: a real local HTTP server whose answers each test sets, and an app whose
// calendar service has test limits (short time limit, small size limit) and DNS that never
// leaves this machine.

import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { FetchLimits } from '../../src/domain/calendar/schedule.ts';
import type { Resolver } from '../../src/lib/outbound-url.ts';
import { describeEachDatabaseWith, startTestApp, type TestContext } from '../helpers/app.ts';
import { type TestClock, testClock } from '../helpers/clock.ts';
import type { DatabaseKind } from '../helpers/db.ts';

export const TEST_LIMITS = { timeoutMs: 1_500, maxBytes: 256 * 1024, maxRedirects: 5 };

/** What a route of the feed server answers. */
export type Answer =
  | { status?: number; headers?: Record<string, string>; body?: Buffer | string }
  | 'hang'
  | 'truncate';

export interface FeedServer {
  base: string;
  /** path -> answer (a function gets the request and how many times the path was asked for). */
  routes: Map<string, Answer | ((req: http.IncomingMessage, n: number) => Answer)>;
  requests: { path: string; headers: http.IncomingHttpHeaders }[];
  url(path: string): string;
  close(): Promise<void>;
}

/** A feed server for a file's tests: started before them, closed after them. */
export function sharedFeedServer(): FeedServer {
  let started: FeedServer | undefined;
  before(async () => {
    started = await startFeedServer();
  });
  after(async () => {
    await started?.close();
  });
  const current = () => {
    if (!started) throw new Error('the feed server is not started yet');
    return started;
  };
  return {
    get base() {
      return current().base;
    },
    get routes() {
      return current().routes;
    },
    get requests() {
      return current().requests;
    },
    url: (path) => current().url(path),
    close: () => current().close(),
  };
}

/** Serves calendars with ETag/Last-Modified and honours If-None-Match / If-Modified-Since. */
export async function startFeedServer(): Promise<FeedServer> {
  const routes: FeedServer['routes'] = new Map();
  const requests: FeedServer['requests'] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    const route = routes.get(path);
    const answer =
      typeof route === 'function' ? route(req, n) : (route ?? { status: 404, body: 'not found' });
    if (answer === 'hang') return;
    if (answer === 'truncate') {
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-length': '5000' });
      res.write('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\n');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    const headers: Record<string, string> = {
      'content-type': 'text/calendar; charset=utf-8',
      ...answer.headers,
    };
    const etag = headers.etag ?? headers.ETag;
    const lastModified = headers['last-modified'];
    if (
      (etag && req.headers['if-none-match'] === etag) ||
      (!etag && lastModified && req.headers['if-modified-since'] === lastModified)
    ) {
      res.writeHead(304, etag ? { etag } : { 'last-modified': lastModified });
      return res.end();
    }
    res.writeHead(answer.status ?? 200, headers);
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    routes,
    requests,
    url: (path) => `${base}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Save-time resolver: names ending .public.example are public, .rebound.example loopback; others do not resolve. */
export const testResolver: Resolver = async (host) => {
  if (host.endsWith('.public.example')) return ['93.184.216.34'];
  if (host.endsWith('.rebound.example')) return ['127.0.0.1'];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

/** Connect-time lookup: every name resolves as localhost does (so nothing leaves this machine). */
export const loopbackLookup = ((_host: string, options: dns.LookupOptions, callback: never) =>
  dns.lookup('localhost', options, callback)) as unknown as typeof dns.lookup;

export interface CalendarTestContext extends TestContext {
  clock: TestClock;
}

/** The calendar tests' clock: 06:00 UTC on 1 September 2026 unless a test moves it. */
export const calendarClock = (iso = '2026-09-01T06:00:00Z') => testClock(iso);

export interface CalendarAppOptions {
  allowLoopback?: boolean;
  /** Limits over TEST_LIMITS (a test of the parse worker's own limits). */
  limits?: Partial<FetchLimits>;
  /** Feeds one institution may have (the service's default otherwise). */
  feedsPerInstitution?: number;
}

export async function startCalendarApp(
  kind: DatabaseKind,
  options: CalendarAppOptions = {},
): Promise<CalendarTestContext> {
  const clock = calendarClock();
  const allowLoopback = options.allowLoopback ?? true;
  const ctx = await startTestApp(kind, {
    config: {
      allowLoopbackOutbound: allowLoopback,
      ...(options.feedsPerInstitution ? { calendarFeedsPerInstitution: options.feedsPerInstitution } : {}),
    },
    clock,
    // The tests' DNS, limits and jitter: feeds are local servers, fetches give up quickly.
    dns: { resolve: testResolver, lookup: loopbackLookup },
    calendarFetch: { limits: { ...TEST_LIMITS, ...options.limits }, random: () => 0 },
  });
  return { ...ctx, clock };
}

export function describeCalendar(
  name: string,
  suite: (ctx: () => CalendarTestContext) => void,
  options: CalendarAppOptions = {},
): void {
  describeEachDatabaseWith(name, (kind) => startCalendarApp(kind, options), suite);
}
