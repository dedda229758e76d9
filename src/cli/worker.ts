// `ssp worker`: every background worker of createWorkers() (webhook deliveries, calendar feed
// fetches, notification emails, OneRoster pulls, crisis escalations, retention) without HTTP, to
// scale them apart from the server. It builds the runtime and the workers only: no sessions, no
// OIDC client, no Redis; with METRICS_PORT, a listener of its own for its metrics
// (docs/operations.md).
import http from 'node:http';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { jsonLogger } from '../lib/json-logger.ts';
import { isScrapeToken, scrape, startProcessMetrics } from '../lib/telemetry/metrics.ts';
import { stopTracing } from '../lib/telemetry/tracing.ts';
import { workersApart } from '../runtime.ts';
import { registerDatabaseMetrics } from '../workers/metrics.ts';

export async function runStandaloneWorker(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    // Embedded PGlite belongs to one process: a second process must not open its data directory.
    process.stderr.write(
      'ssp worker: a standalone worker needs PostgreSQL (DATABASE_URL); with the embedded database, workers run inside `ssp serve` (RUN_WORKERS=true)\n',
    );
    process.exit(2);
  }
  const logger = jsonLogger(config.logLevel);
  const db = await openDb(config);
  await migrate(db);
  const workers = workersApart({ db, config }, logger);
  const unregisterMetrics = registerDatabaseMetrics(db, workers.runtime.clock); // the queues' depths
  workers.start();
  // This process's own job metrics (queues are the database's, on every instance's /metrics).
  const metrics = config.metricsPort
    ? await serveMetrics(config.host, config.metricsPort, config.metricsTokenHash ?? '')
    : undefined;
  if (metrics) logger.info({ port: config.metricsPort }, 'worker metrics at /metrics');
  const stop = async (signal: string) => {
    logger.info({ signal }, 'worker stopping');
    metrics?.close();
    await workers.stop();
    unregisterMetrics();
    await db.close();
    await stopTracing(); // sends the spans still buffered
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** GET /metrics with the scrape token, on a listener of its own; anything else is 404. */
async function serveMetrics(host: string, port: number, tokenHash: string): Promise<http.Server> {
  startProcessMetrics();
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics')
      return void response.writeHead(404).end();
    if (!isScrapeToken(request.headers.authorization, tokenHash))
      return void response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    scrape().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}
