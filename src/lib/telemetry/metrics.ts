// The process's Prometheus metrics (prom-client), read at GET /metrics. One registry per process,
// as Prometheus sees it: a scrape reads one instance. What is counted where:
// - HTTP requests by route template and status, with durations (src/app/context/http-metrics.ts);
// - feed rows by outcome, row errors and run outcomes, where every push and pull is recorded
//   (src/domain/runs/runs.ts);
// - every background worker's queue (depth and lag, read from the database at scrape time) and
//   its jobs (outcome and duration): a worker plugs in with registerWorkerQueue() and runs each
//   job through workerJob() (./jobs.ts); docs/operations.md shows how;
// - the PostgreSQL pool (connections in use, idle, waited for; the wait for a connection);
// - Node.js's own: event-loop delay, heap, GC, CPU (prom-client's default metrics).
import client from 'prom-client';
import { bearerToken, digestsEqual, sha256Hex } from '../secrets.ts';

export const registry = new client.Registry();

let processMetrics = false;
/**
 * Node.js's own metrics (event-loop delay, heap, GC, CPU), started by the processes that serve
 * /metrics (the HTTP application, `ssp worker` with METRICS_PORT), not by every CLI command.
 */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
}

export const httpRequestDuration = new client.Histogram({
  name: 'ssp_http_request_duration_seconds',
  help: 'HTTP requests by method, route template and status code, and how long each took',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const feedRowsReceived = new client.Counter({
  name: 'ssp_feed_rows_received_total',
  help: 'Rows received by feed pushes and OneRoster pulls, by feed; dry runs included',
  labelNames: ['feed'] as const,
  registers: [registry],
});

export const feedRows = new client.Counter({
  name: 'ssp_feed_rows_total',
  help: 'Rows of feed pushes and OneRoster pulls by feed and outcome (created, updated, unchanged, ...); dry runs excluded',
  labelNames: ['feed', 'outcome'] as const,
  registers: [registry],
});

export const feedRowErrors = new client.Counter({
  name: 'ssp_feed_row_errors_total',
  help: 'Row errors reported to feed pushes and OneRoster pulls, by feed; dry runs included',
  labelNames: ['feed'] as const,
  registers: [registry],
});

export const runsTotal = new client.Counter({
  name: 'ssp_runs_total',
  help: 'Recorded runs (pushes and pulls) by kind and outcome: ok, row_errors or failed',
  labelNames: ['kind', 'outcome', 'dry_run'] as const,
  registers: [registry],
});

export const workerJobDuration = new client.Histogram({
  name: 'ssp_worker_job_duration_seconds',
  help: 'Background jobs (a webhook delivery, a calendar fetch, an email, a OneRoster pull) by worker and outcome',
  labelNames: ['worker', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

/** How deep a worker's queue is: items due now and not taken, and the age of the oldest. */
export interface QueueDepth {
  depth: number;
  lagSeconds: number;
}

const queueProbes = new Map<string, () => Promise<QueueDepth>>();

/**
 * Makes a worker's queue part of every scrape. `probe` is one cheap aggregate query; it runs at
 * scrape time only. A second registration under the same name replaces the first; the returned
 * function removes it (when the process that registered it closes).
 */
export function registerWorkerQueue(worker: string, probe: () => Promise<QueueDepth>): () => void {
  queueProbes.set(worker, probe);
  return () => {
    if (queueProbes.get(worker) === probe) queueProbes.delete(worker);
  };
}

/** Reads that several families share, forgotten at the start of each scrape. */
const perScrape: (() => void)[] = [];

/** Each queue read once per scrape, shared by the depth and the lag gauges. */
let queueRead: Promise<Map<string, QueueDepth | undefined>> | undefined;
perScrape.push(() => {
  queueRead = undefined;
});
function readQueues(): Promise<Map<string, QueueDepth | undefined>> {
  queueRead ??= (async () => {
    const entries = await Promise.all(
      [...queueProbes].map(
        async ([worker, probe]) => [worker, await probe().catch(() => undefined)] as const,
      ),
    );
    return new Map(entries);
  })();
  return queueRead;
}

new client.Gauge({
  name: 'ssp_worker_queue_depth',
  help: 'Work due now and not yet taken, by worker (a failed read leaves the worker out of the scrape)',
  labelNames: ['worker'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const [worker, read] of await readQueues()) if (read) this.set({ worker }, read.depth);
  },
});

new client.Gauge({
  name: 'ssp_worker_queue_lag_seconds',
  help: 'How long the oldest item due has waited, by worker (0 when nothing is due)',
  labelNames: ['worker'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const [worker, read] of await readQueues()) if (read) this.set({ worker }, read.lagSeconds);
  },
});

/** What a database pool reports of itself (PostgreSQL; the embedded database has no pool). */
export interface PoolStatus {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

let poolStatus: (() => PoolStatus | undefined) | undefined;

/** The pool the scrape reports; the last registered (the process's database) wins. */
export function registerPool(status: () => PoolStatus | undefined): () => void {
  poolStatus = status;
  return () => {
    if (poolStatus === status) poolStatus = undefined;
  };
}

new client.Gauge({
  name: 'ssp_db_pool_connections',
  help: 'PostgreSQL pool connections: in_use, idle, max, and waiting (requests queued for a connection)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    const status = poolStatus?.();
    if (!status) return;
    this.set({ state: 'in_use' }, status.total - status.idle);
    this.set({ state: 'idle' }, status.idle);
    this.set({ state: 'waiting' }, status.waiting);
    this.set({ state: 'max' }, status.max);
  },
});

export const poolWait = new client.Histogram({
  name: 'ssp_db_pool_wait_seconds',
  help: 'How long a query or transaction waited for a PostgreSQL connection from the pool',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/** A family of gauges whose samples come from one read of a source (see sourcedGauges). */
export interface GaugeFamily<T> {
  name: string;
  help: string;
  labelNames?: string[];
  samples(value: T): [labels: Record<string, string>, value: number][];
}

/**
 * Gauges read at scrape time from one source (an aggregate query), read once per scrape however
 * many families it feeds. Created once per process; setSource points them at the process's
 * database (the last one set wins; the returned function unsets it). No source: no samples.
 */
export function sourcedGauges<T>(families: GaugeFamily<T>[]) {
  let source: (() => Promise<T>) | undefined;
  let read: Promise<T | undefined> | undefined;
  perScrape.push(() => {
    read = undefined;
  });
  const readOnce = () => {
    read ??= (source?.() ?? Promise.resolve(undefined)).catch(() => undefined);
    return read;
  };
  for (const family of families) {
    new client.Gauge({
      name: family.name,
      help: family.help,
      labelNames: family.labelNames ?? [],
      registers: [registry],
      async collect() {
        this.reset();
        const value = await readOnce();
        if (value !== undefined)
          for (const [labels, n] of family.samples(value)) this.set(labels, Number(n ?? 0));
      },
    });
  }
  return {
    setSource(read: () => Promise<T>): () => void {
      source = read;
      return () => {
        if (source === read) source = undefined;
      };
    },
  };
}

/** Metrics as another thread of the process reports them (prom-client's JSON form). */
export type MetricsJson = Awaited<ReturnType<typeof registry.getMetricsAsJSON>>;

const threadSources = new Set<() => Promise<MetricsJson>>();

/**
 * Makes another thread's metrics part of every scrape (the workers' thread: its jobs, its runs,
 * its pool), added to this thread's; the returned function removes it.
 */
export function addThreadMetrics(read: () => Promise<MetricsJson>): () => void {
  threadSources.add(read);
  return () => threadSources.delete(read);
}

/** This thread's metrics in prom-client's JSON form, read as a scrape reads them. */
export async function metricsAsJson(): Promise<MetricsJson> {
  for (const forget of perScrape) forget();
  return registry.getMetricsAsJSON();
}

/** The exposition text of every metric, and its content type. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  if (threadSources.size === 0) {
    for (const forget of perScrape) forget();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
  const [own, ...others] = await Promise.all([
    metricsAsJson(),
    ...[...threadSources].map((read) => read().catch((): MetricsJson => [])),
  ]);
  // Only what another thread recorded is added (a counter's or a histogram's values summed by
  // labels); the rest is this thread's as it stands, whatever prom-client would aggregate it
  // with across processes (its process start time, say, is left out of a cluster's figures).
  const recorded = others.flat().filter((metric) => metric.values.length > 0);
  const added = new Set(recorded.map((metric) => metric.name));
  const kept = own.map((metric) =>
    added.has(metric.name) ? metric : { ...metric, aggregator: 'first' as const },
  );
  const merged = client.AggregatorRegistry.aggregate([kept, recorded]);
  return { contentType: registry.contentType, body: await merged.metrics() };
}

/**
 * Whether an Authorization header carries the scrape token (its SHA-256 is `expected`); the
 * operator token, or anything else, is not it.
 */
export function isScrapeToken(authorization: string | undefined, expected: string): boolean {
  const token = bearerToken(authorization);
  return Boolean(token) && digestsEqual(sha256Hex(token ?? ''), expected);
}
