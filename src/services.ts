// Composition root of the HTTP application: binds the domain to one runtime (src/runtime.ts:
// database, clock, configuration, keyring, the OIDC client and Redis opened on first use) for the
// route files. Shrinking: routes that import the area's functions read `request.deps` instead.
import { createRuntime, createWorkers, pullDepsOf, type RuntimeOptions } from './runtime.ts';
import { registerDatabaseMetrics } from './workers/metrics.ts';
import type { WorkerLogger } from './workers/webhook-delivery.ts';

export type ServiceDeps = RuntimeOptions;

export function createServices(options: ServiceDeps) {
  const runtime = createRuntime(options);
  const { db, config, clock, keyring } = runtime;
  const workers = createWorkers(runtime, pullDepsOf(runtime));
  const unregisterMetrics = registerDatabaseMetrics(db, clock); // what GET /metrics reads

  return {
    /** The process's dependencies, which routes read as `request.deps`. */
    deps: runtime,
    db,
    config,
    clock,
    keyring,
    /** Every background worker of a process: start() them, stop() lets work in flight finish. */
    workers: (logger: WorkerLogger) => workers.all(logger),
    /** Releases what the services opened themselves (not the database, which the caller owns). */
    async close(): Promise<void> {
      await workers.close();
      await runtime.close();
      unregisterMetrics();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
