// What one tenant's OneRoster provider may cost the shared server, against real local HTTP
// servers: an error answer's body is read only in part (a 500 with 300 MB leaves the server's
// memory where it was), a page over its budget and a pull over its own fail the pull, a slowly
// trickling answer is cut by the pull's deadline, and pages are parsed in a worker thread whose
// memory limit fails the pull, not the server. Each failure has a stable code, shown on the
// source and in the run.
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { PullLimits } from '../../src/domain/oneroster/pull/client.ts';
import { type PullDeps, pullDepsOf, pullNow } from '../../src/domain/oneroster/pull/pull.ts';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';

const MB = 1024 * 1024;

type Handler = (collection: string, offset: number, res: http.ServerResponse) => void;

interface Hostile {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Bytes of data answers written so far (what the server managed to hand the socket). */
  sent: number;
  handle: Handler;
  close(): Promise<void>;
}

const empty: Handler = (collection, _offset, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'x-total-count': '0' });
  res.end(JSON.stringify({ [collection]: [] }));
};

async function startHostile(): Promise<Hostile> {
  const hostile = { sent: 0, handle: empty } as Hostile;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    req.resume();
    if (url.pathname === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 't', token_type: 'bearer', expires_in: 3600 }));
      return;
    }
    res.on('error', () => {});
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      hostile.sent += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    hostile.handle(url.pathname.split('/').pop() ?? '', Number(url.searchParams.get('offset') ?? 0), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(hostile, {
    baseUrl: `http://127.0.0.1:${port}/ims/oneroster/rostering/v1p2`,
    tokenUrl: `http://127.0.0.1:${port}/token`,
    clientId: 'c',
    clientSecret: 's',
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Streams `bytes` bytes of `fill` after `head`, respecting backpressure; stops when the client goes. */
function stream(res: http.ServerResponse, head: string, bytes: number, fill = 'x'): void {
  const chunk = Buffer.alloc(64 * 1024, fill);
  let left = bytes;
  res.write(head);
  const more = () => {
    while (left > 0 && !res.destroyed) {
      left -= chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

/** A users page of `count` students, padded with an extension field to about `bytes`. */
function usersPage(offset: number, count: number, bytes: number): string {
  const pad = 'p'.repeat(Math.max(0, Math.floor(bytes / count) - 300));
  const users = Array.from({ length: count }, (_, i) => ({
    sourcedId: `u${offset + i}`,
    status: 'active',
    givenName: 'G',
    familyName: 'F',
    identifier: `S${offset + i}`,
    email: `u${offset + i}@limits.example`,
    roles: [{ roleType: 'primary', role: 'student', org: { sourcedId: 'school' } }],
    metadata: { pad },
  }));
  return JSON.stringify({ users });
}

describeEachDatabase(
  'OneRoster pull limits',
  (context) => {
    let ctx: TestContext;
    let hostile: Hostile;
    before(async () => {
      ctx = context();
      hostile = await startHostile();
    });
    after(() => hostile.close());

    const depsWith = (limits: Partial<PullLimits>): PullDeps => ({
      ...pullDepsOf(ctx.deps),
      limits: { ...pullDepsOf(ctx.deps).limits, ...limits },
      sleep: async () => {},
      random: () => 0,
    });
    const tenantPulling = async () => {
      const tenant = await seedTenant(ctx);
      const put = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/oneroster-source`, {
        base_url: hostile.baseUrl,
        token_url: hostile.tokenUrl,
        client_id: hostile.clientId,
        client_secret: hostile.clientSecret,
        cohort_id: tenant.cohortId,
      });
      assert.equal(put.statusCode, 200, put.body);
      return tenant;
    };
    /** The source's failure and the run's, as the admin API shows them. */
    const shown = async (slug: string, runId: string) => {
      const source = (await ctx.admin('GET', `/admin/v1/institutions/${slug}/oneroster-source`)).json();
      const run = (await ctx.admin('GET', `/admin/v1/institutions/${slug}/runs/${runId}`)).json();
      const status = (
        await ctx.admin('GET', `/admin/v1/institutions/${slug}/oneroster-source/pulls/${runId}`)
      ).json();
      return { source, run, status };
    };

    test('a 500 with a 300 MB body: a little of it is read, five times, and the server memory stays where it was', async () => {
      const tenant = await tenantPulling();
      hostile.sent = 0;
      let answers = 0;
      hostile.handle = (_c, _o, res) => {
        answers++;
        res.writeHead(500, { 'content-type': 'text/plain' });
        stream(res, 'upstream exploded ', 300 * MB, 'e');
      };
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const outcome = await pullNow(depsWith({}), tenant.institutionId, 'full');
      clearInterval(sampler);
      assert.equal(outcome.status, 'failed');
      assert.equal(outcome.error_code, 'provider_error');
      assert.match(outcome.error ?? '', /^orgs \(offset 0\): HTTP 500: upstream exploded e+$/);
      assert.ok((outcome.error ?? '').length < 300, 'the reason quotes the start of the body only');
      assert.equal(answers, 5, 'tried as often as a 5xx is tried');
      // Five tries of 300 MB offered: what reached the socket is the read cap and the kernel's buffers.
      assert.ok(hostile.sent < 5 * 30 * MB, `sent ${Math.round(hostile.sent / MB)} MB`);
      assert.ok(peak - before < 150 * MB, `the server grew by ${Math.round((peak - before) / MB)} MB`);
      const { source, run } = await shown(tenant.slug, outcome.run_id);
      assert.equal(source.last_error_code, 'provider_error');
      assert.equal(run.counts.error_code, 'provider_error');
      hostile.handle = empty;
    });

    test('a page over the page budget, and pages over the pull budget, fail the pull with their codes', async () => {
      const tenant = await tenantPulling();
      hostile.handle = (collection, offset, res) => {
        if (collection !== 'users') return empty(collection, offset, res);
        res.writeHead(200, { 'content-type': 'application/json', 'x-total-count': '4000' });
        res.end(usersPage(offset, 1000, 2 * MB));
      };
      const page = await pullNow(depsWith({ maxBytes: 1 * MB }), tenant.institutionId, 'full');
      assert.equal(page.status, 'failed');
      assert.equal(page.error_code, 'page_too_large');
      assert.match(page.error ?? '', /^users \(offset 0\): the answer is too large: .*a page may have 1 MB$/);
      let shownNow = await shown(tenant.slug, page.run_id);
      assert.equal(shownNow.source.last_error_code, 'page_too_large');
      assert.equal(shownNow.run.counts.error_code, 'page_too_large');
      assert.equal(shownNow.status.error_code, 'page_too_large');

      // Each page within its budget (3 MB), the pull's 5 MB passed at the third page.
      const pull = await pullNow(
        depsWith({ maxBytes: 3 * MB, pullMaxBytes: 5 * MB, pageSize: 1000 }),
        tenant.institutionId,
        'full',
      );
      assert.equal(pull.status, 'failed');
      assert.equal(pull.error_code, 'pull_too_large');
      assert.match(pull.error ?? '', /^users \(offset 2000\): the pull is too large/);
      shownNow = await shown(tenant.slug, pull.run_id);
      assert.equal(shownNow.source.last_error_code, 'pull_too_large');
      assert.equal(
        (await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students`)).json().items.length,
        0,
      );

      // Within both budgets the same provider is pulled, each page parsed in a worker thread.
      const threads = new Set<number>();
      const seen = (message: unknown) => threads.add((message as { threadId: number }).threadId);
      diagnosticsChannel.subscribe('ssp.oneroster.parse', seen);
      try {
        const ok = await pullNow(
          depsWith({ maxBytes: 3 * MB, pullMaxBytes: 64 * MB }),
          tenant.institutionId,
          'full',
        );
        assert.equal(ok.status, 'ok', ok.error ?? '');
        assert.equal(ok.sections.roster?.created, 4000);
      } finally {
        diagnosticsChannel.unsubscribe('ssp.oneroster.parse', seen);
      }
      assert.equal(threads.size, 1, 'one parse worker for the pull');
      assert.ok(!threads.has(0), 'never the main thread');
      const healthy = await shown(tenant.slug, 'x');
      assert.equal(healthy.source.last_error_code, null);
      hostile.handle = empty;
    });

    test('a slowly trickling answer is cut by the pull deadline', async () => {
      const tenant = await tenantPulling();
      const timers = new Set<NodeJS.Timeout>();
      hostile.handle = (collection, _o, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"${collection}":[`);
        const timer = setInterval(() => {
          if (res.destroyed) return clearInterval(timer);
          res.write(' ');
        }, 50);
        timers.add(timer);
      };
      const started = performance.now();
      const outcome = await pullNow(
        depsWith({ timeoutMs: 800, deadlineMs: 2000 }),
        tenant.institutionId,
        'full',
      );
      const took = performance.now() - started;
      for (const timer of timers) clearInterval(timer);
      assert.equal(outcome.status, 'failed');
      assert.equal(outcome.error_code, 'pull_deadline');
      assert.match(outcome.error ?? '', /ran out of time/);
      assert.ok(took < 6000, `cut after ${Math.round(took)} ms`);
      const { source } = await shown(tenant.slug, outcome.run_id);
      assert.equal(source.last_error_code, 'pull_deadline');
      assert.match(source.last_error, /deadline/);
      hostile.handle = empty;
    });

    test('a page that needs more memory than the parse worker may use fails the pull, not the server', async () => {
      const tenant = await tenantPulling();
      // 25 MB of tiny records: some 700,000 objects, far more heap than 32 MB.
      const record = '{"sourcedId":"u","status":"active","role":"student"},';
      const count = Math.floor((25 * MB) / record.length);
      const body = `{"users":[${record.repeat(count)}{}]}`;
      hostile.handle = (collection, offset, res) => {
        if (collection !== 'users') return empty(collection, offset, res);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      };
      const outcome = await pullNow(depsWith({ parseMemoryMb: 32 }), tenant.institutionId, 'full');
      assert.equal(outcome.status, 'failed');
      assert.equal(outcome.error_code, 'parse_memory');
      assert.match(outcome.error ?? '', /memory limit/);
      // The server carries on.
      assert.equal((await ctx.request({ method: 'GET', url: '/health/live' })).statusCode, 200);
      hostile.handle = empty;
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
