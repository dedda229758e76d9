// The polling loop of the background workers (calendar fetches, OneRoster pulls, notification
// emails), in one place: run a round; when the round found a full batch, more may be due, so run
// again at once, otherwise sleep `pollMs` (stop wakes the sleep, and so does wake(): work was
// just asked for; a wake during a round makes the next round start without sleeping). A round that throws (the
// database unavailable, say) is reported and the loop goes on after its sleep.

export interface PollLoop {
  readonly running: boolean;
  start(): void;
  /** Runs the next round now: ends the sleep, or skips the one after the round in flight. */
  wake(): void;
  /** Stops claiming; the round in flight is waited for at most `waitMs` (its leases then lapse). */
  stop(waitMs?: number): Promise<void>;
}

export function pollLoop(options: {
  round: () => Promise<{ claimed: number }>;
  /** Whether a round that claimed this many took all it could (claim again at once). */
  full: (claimed: number) => boolean;
  pollMs: number;
  onError: (error: unknown) => void;
}): PollLoop {
  let running = false;
  let loopDone: Promise<void> | undefined;
  const { sleep, wake } = sleeper();
  let woken = false;

  async function loop(): Promise<void> {
    while (running) {
      woken = false;
      let claimed = 0;
      try {
        claimed = (await options.round()).claimed;
      } catch (error) {
        options.onError(error);
      }
      if (running && !woken && !options.full(claimed)) await sleep(options.pollMs);
    }
  }

  return {
    get running() {
      return running;
    },
    start(): void {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    wake(): void {
      woken = true;
      wake();
    },
    async stop(waitMs = 5_000): Promise<void> {
      running = false;
      wake();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loopDone, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    },
  };
}

/** A sleep that wake() ends early (work was asked for, a slot came free, the loop stops). */
export function sleeper(): { sleep(ms: number): Promise<void>; wake(): void } {
  let wakeUp: (() => void) | undefined;
  return {
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = done;
      }),
    wake: () => wakeUp?.(),
  };
}
