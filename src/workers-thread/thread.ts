// The workers' thread: every background worker of createWorkers(), as `ssp worker` runs them,
// over a runtime and a PostgreSQL pool of its own, so that their work (deliveries' HTTP and
// signing, a pull's planning, a calendar feed's store) never holds the server's thread. The
// server's thread starts and stops it, hands on "Sync now" and reads its metrics for GET
// /metrics (./start.ts); the database's migrations are the server's, run before.
import type { MessagePort } from 'node:worker_threads';
import type { Config } from '../config.ts';
import { openDb } from '../db/db.ts';
import { jsonLogger } from '../lib/json-logger.ts';
import { metricsAsJson } from '../lib/telemetry/metrics.ts';
import { stopTracing } from '../lib/telemetry/tracing.ts';
import { workersApart } from '../runtime.ts';
import { registerPoolMetrics } from '../workers/metrics.ts';
import type { FromWorkers, ThreadSettings, ToWorkers } from './messages.ts';

export async function runWorkersThread(
  port: MessagePort,
  sent: Config,
  settings: ThreadSettings,
): Promise<void> {
  // A structured clone makes the keys plain Uint8Arrays: Buffers again, as loadConfig made them.
  const config: Config = {
    ...sent,
    encryptionKey: sent.encryptionKey && Buffer.from(sent.encryptionKey),
    encryptionKeysPrevious: sent.encryptionKeysPrevious.map((key) => Buffer.from(key)),
  };
  // The embedded database has one client, the server's (loadConfig refuses the thread without PostgreSQL).
  if (!config.databaseUrl) throw new Error('the workers thread needs PostgreSQL (DATABASE_URL)');
  const logger = jsonLogger(config.logLevel);
  const db = await openDb(config);
  const calendarFetch = settings.calendarLimits && { limits: settings.calendarLimits };
  const workers = workersApart({ db, config, calendarFetch }, logger);
  const unregisterPool = registerPoolMetrics(db);
  const say = (message: FromWorkers) => port.postMessage(message);

  const stop = async () => {
    await workers.stop();
    unregisterPool();
    await db.close();
    await stopTracing(); // sends the spans still buffered
    say({ kind: 'stopped' });
    port.close();
  };
  port.on('message', (message: ToWorkers) => {
    if (message.kind === 'start') workers.start();
    else if (message.kind === 'pull-requested') workers.runtime.pullRequested.notify();
    else if (message.kind === 'metrics')
      void metricsAsJson().then(
        (metrics) => say({ kind: 'metrics', id: message.id, metrics }),
        () => say({ kind: 'metrics', id: message.id, metrics: [] }),
      );
    else if (message.kind === 'stop') void stop();
  });
  say({ kind: 'ready' });
}
