// What every polling worker does around its round, in one place: the poll loop (src/lib/poll-loop.ts)
// with a failed round logged, a start that logs once, and a stop that waits for the round in flight
// (at most `stopWaitMs`: a hanging round must not hold up a shutdown, its leases simply lapse).
import { pollLoop } from '../lib/poll-loop.ts';

/** What the workers log through (a pino logger in the processes). */
export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A worker's loop of `round`; `name` as logged: `${name} started`. */
export function workerLoop(
  name: string,
  log: Pick<WorkerLogger, 'info' | 'error'> | undefined,
  round: () => Promise<{ claimed: number }>,
  options: {
    /** Whether a round that claimed this many took all it could (run again at once). */
    full: (claimed: number) => boolean;
    pollMs: number;
    /** Logged when a round throws. */
    failed: string;
    /** Extra fields of the start line. */
    startFields?: object;
  },
) {
  const poller = pollLoop({
    round,
    full: options.full,
    pollMs: options.pollMs,
    onError: (error) => log?.error({ err: error }, options.failed),
  });
  return {
    get running() {
      return poller.running;
    },
    start(): void {
      if (poller.running) return;
      log?.info(options.startFields ?? {}, `${name} started`);
      poller.start();
    },
    wake: () => poller.wake(),
    stop: (stopWaitMs = 5_000) => poller.stop(stopWaitMs),
  };
}
