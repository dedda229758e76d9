// Process entry: config -> database -> migrations -> runtime -> app (+ database metrics, workers)
// -> graceful close.
import { buildApp } from './app/app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { DatabaseInUseError, embeddedDatabaseExists, openDb } from './db/db.ts';
import { migrate } from './db/migrate.ts';
import { mintOperatorLink } from './domain/people/sign-in.ts';
import { ensureOperatorCredential } from './domain/secrets/operator-credentials.ts';
import { resealSecrets } from './domain/secrets/reseal.ts';
import { stopTracing, tracing } from './lib/telemetry/tracing.ts';
import { createRuntime, createWorkers, pullDepsOf, type Runtime, type Workers } from './runtime.ts';
import { registerDatabaseMetrics } from './workers/metrics.ts';
import type { WorkerLogger } from './workers/worker-loop.ts';
import { startWorkersThread } from './workers-thread/start.ts';

export async function serve(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // Progress of a start, for people: straight to stderr, before the logger exists.
  const say = (line: string) => process.stderr.write(`ssp: ${line}\n`);
  let closing = false;
  // Before the service listens: the signals (a stop the moment it is up still closes it cleanly)
  // and a first start's operator token, printed before the "listening" line as always.
  await startService(config, say, async ({ close, app, deps, firstToken }) => {
    const shutdown = async (signal: string) => {
      if (closing) return;
      closing = true;
      app.log.info({ signal }, 'shutting down');
      try {
        await close();
      } finally {
        process.exit(0);
      }
    };
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    process.on('SIGINT', () => void shutdown('SIGINT'));
    if (!firstToken) return;
    // Printed once, straight to the terminal and never through the logger: only hashes are stored.
    const link = await mintOperatorLink(deps);
    process.stdout.write(
      `\n  Operator token (shown once; only its hash is stored):\n\n    ${firstToken}\n\n` +
        '  Use it as Authorization: Bearer <token> on /admin/v1, or export SSP_OPERATOR_TOKEN for the ssp CLI.\n\n' +
        `  Console sign-in link for the operator (works once, for 24 hours; \`npx ssp operator-link\` mints another):\n\n    ${link.url}\n\n`,
    );
  });
}

export interface RunningService {
  app: Awaited<ReturnType<typeof buildApp>>;
  /** The process's dependencies, as the routes read them (`request.deps`). */
  deps: Runtime;
  /** Where it listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** The operator token made by a first start (undefined on later starts). */
  firstToken: string | undefined;
  /** Stops accepting, lets in-flight requests finish, stops the workers, closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the database, applies the migrations, builds the app, listens and starts the workers:
 * `npm start` and `ssp demo --serve` alike. A database that is in use exits the process (2).
 */
export async function startService(
  config: Config,
  say: (line: string) => void,
  /** Called (and awaited) once the service can close, before it listens. */
  beforeListen?: (service: Omit<RunningService, 'url'>) => Promise<void> | void,
): Promise<RunningService> {
  if (!config.databaseUrl && !embeddedDatabaseExists(config.dataDir))
    say(`creating the embedded database in ${config.dataDir} (first start only; this takes a while)`);
  let db: Awaited<ReturnType<typeof openDb>>;
  try {
    db = await openDb({ ...config, onTightened: say });
  } catch (error) {
    if (error instanceof DatabaseInUseError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  await migrate(db, undefined, {
    onMigration: ({ version, index, total }) => say(`applying migration ${index} of ${total}: ${version}`),
  });
  // What this process runs: the HTTP application over its runtime, the database's figures for
  // GET /metrics, and the background workers when RUN_WORKERS says so (`ssp worker` otherwise).
  const runtime = createRuntime({ db, config });
  // Secrets stored before encryption at rest, or under a rotated-out key, are sealed anew.
  await resealSecrets(db, runtime.keyring);
  const firstToken = await ensureOperatorCredential(runtime);
  const app = await buildApp(runtime);
  const unregisterMetrics = registerDatabaseMetrics(db, runtime.clock);
  // A dead workers' thread ends the process (non-zero), for its supervisor to start it whole.
  const onCrash = (error: Error) => {
    app.log.fatal({ err: error }, 'the workers thread stopped; exiting');
    void close().finally(() => process.exit(1));
  };
  const workers = config.runWorkers ? await serviceWorkers(config, runtime, onCrash) : undefined;
  const close = async () => {
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    await app.close(); // stops accepting, lets in-flight requests finish
    await workers?.stop();
    await runtime.close();
    unregisterMetrics();
    await db.close();
    await stopTracing(); // sends the spans still buffered
    clearTimeout(timer);
  };
  await beforeListen?.({ app, deps: runtime, firstToken, close });
  const url = await app.listen({ host: config.host, port: config.port });
  workers?.start(app.log);
  app.log.info(
    {
      database: db.kind === 'pglite' ? `embedded (${config.dataDir})` : 'postgresql',
      workers: workers?.where ?? 'off',
      docs: '/docs',
      tracing: tracing() ? 'otlp' : 'off',
    },
    'serving',
  );
  return { app, deps: runtime, url, firstToken, close };
}

/**
 * The service's background workers: in a thread of their own with WORKERS_THREAD (on by default
 * with PostgreSQL; src/workers-thread/), else on the server's thread, as the embedded database
 * has them. Built before the service listens, started once it does.
 */
async function serviceWorkers(config: Config, runtime: Runtime, onCrash: (error: Error) => void) {
  if (config.workersThread) {
    const thread = await startWorkersThread(config, runtime, onCrash);
    return { where: 'own thread', start: () => thread.start(), stop: () => thread.stop() };
  }
  const workers = createWorkers(runtime, pullDepsOf(runtime));
  let started: ReturnType<Workers['all']> | undefined;
  return {
    where: "server's thread",
    start(logger: WorkerLogger) {
      started = workers.all(logger);
      started.start();
    },
    async stop() {
      await started?.stop();
      await workers.close();
    },
  };
}

if (import.meta.main) await serve();
