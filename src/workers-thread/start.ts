// The server's side of the workers' thread (./thread.ts): starts it, hands "Sync now" on to it
// (the process's pullRequested signal, rung by the server's requests), adds its metrics to the
// server's GET /metrics, and stops it. A thread that dies while it should be running is
// reported through `onCrash`: the server then exits non-zero (src/main.ts), as it did when a
// worker on its own thread threw, so that the supervisor restarts a whole, working process.
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.ts';
import type { Deps } from '../domain/deps.ts';
import { addThreadMetrics, type MetricsJson } from '../lib/telemetry/metrics.ts';
import type { FromWorkers, ThreadSettings, ToWorkers } from './messages.ts';

/** How long a scrape waits for the thread's metrics before answering without them. */
const METRICS_WAIT_MS = 2_000;

export interface WorkersThread {
  /** The workers start claiming (once the server listens). */
  start(): void;
  /** Stops claiming, lets work in flight finish, closes the thread's pool; the thread ends. */
  stop(): Promise<void>;
}

/** Starts the thread and resolves once its workers are built (not yet started). */
export async function startWorkersThread(
  config: Config,
  deps: Pick<Deps, 'pullRequested'>,
  onCrash: (error: Error) => void,
  settings: ThreadSettings = {},
): Promise<WorkersThread> {
  const thread = new Worker(new URL('./entry.ts', import.meta.url), { workerData: { config, settings } });
  const tell = (message: ToWorkers) => thread.postMessage(message);
  const metricsAsked = new Map<number, (metrics: MetricsJson) => void>();
  let asked = 0;
  let stopping = false;
  let alive = true;
  let isReady = false;
  let crashed = false;
  let stopped: (() => void) | undefined;
  // An uncaught error is reported twice (the error, then the exit): said once.
  const onCrashOr = (reject: (error: Error) => void, error: Error) => {
    if (!isReady) return reject(error);
    if (!crashed) onCrash(error);
    crashed = true;
  };
  const ready = new Promise<void>((resolve, reject) => {
    thread.on('message', (message: FromWorkers) => {
      if (message.kind === 'ready') resolve();
      else if (message.kind === 'stopped') stopped?.();
      else if (message.kind === 'metrics') metricsAsked.get(message.id)?.(message.metrics);
    });
    // Before it is ready the start fails; after, a thread ending unasked is a crash.
    thread.on('error', (error) => (stopping ? undefined : onCrashOr(reject, error)));
    thread.on('exit', (code) => {
      alive = false;
      stopped?.();
      for (const answer of metricsAsked.values()) answer([]);
      if (!stopping) onCrashOr(reject, new Error(`the workers thread exited with code ${code}`));
    });
  });
  await ready;
  isReady = true;

  const unlisten = deps.pullRequested.listen(() => tell({ kind: 'pull-requested' }));
  const removeMetrics = addThreadMetrics(
    () =>
      new Promise<MetricsJson>((resolve) => {
        const id = ++asked;
        const timer = setTimeout(() => answer([]), METRICS_WAIT_MS);
        const answer = (metrics: MetricsJson) => {
          clearTimeout(timer);
          metricsAsked.delete(id);
          resolve(metrics);
        };
        metricsAsked.set(id, answer);
        tell({ kind: 'metrics', id });
      }),
  );
  return {
    start: () => tell({ kind: 'start' }),
    async stop() {
      if (stopping) return;
      stopping = true;
      unlisten();
      removeMetrics();
      if (!alive) return;
      // The thread answers once its workers, runtime and pool are closed (or it ends first).
      await new Promise<void>((resolve) => {
        stopped = resolve;
        tell({ kind: 'stop' });
      });
      await thread.terminate();
    },
  };
}
