// Background work that loops over many items in memory (a pull's 20,000 users, a push page's
// 5000 rows) runs on the server's thread between its statements. A `for await` over records
// already in memory never leaves the promise jobs, so without a turn of the event loop the whole
// loop holds every request (a pull's roster planning held it for 0.3 s). slices() hands such a
// loop a pause that takes a turn (setImmediate: after the I/O already waiting, requests among it)
// once the loop has run `sliceMs` since its last turn, and costs one clock read otherwise.

/** A loop's slices: `pause()` is undefined while the slice lasts, a turn of the event loop once it is over. */
export function slices(sliceMs = 10): { pause(): Promise<void> | undefined } {
  let since = performance.now();
  return {
    pause() {
      if (performance.now() - since < sliceMs) return undefined;
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          since = performance.now();
          resolve();
        }),
      );
    },
  };
}

/**
 * Jobs started in slices: a job runs at once while the slice lasts (`sliceMs` since this queue's
 * last turn of the event loop); after that it, and every job after it, waits for the next turn,
 * where the jobs run in order until the slice is over again. For work that starts many short
 * jobs at once (the delivery worker starting 256 attempts, each an HTTP request to open and a
 * body to sign), so that starting them never holds requests for long.
 */
export function createSlicedQueue(sliceMs = 10): { run(job: () => void): void } {
  const jobs: (() => void)[] = [];
  let since = performance.now();
  let scheduled = false;
  const runSlice = () => {
    since = performance.now();
    while (jobs.length > 0 && performance.now() - since < sliceMs) jobs.shift()!();
    if (jobs.length > 0) setImmediate(runSlice);
    else scheduled = false;
  };
  return {
    run(job) {
      if (!scheduled && performance.now() - since < sliceMs) {
        job();
        return;
      }
      jobs.push(job);
      if (!scheduled) {
        scheduled = true;
        setImmediate(runSlice);
      }
    },
  };
}
