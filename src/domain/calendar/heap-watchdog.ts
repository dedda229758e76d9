// Stops a worker thread whose heap passes its limit, before V8 has to.
//
// A worker's resourceLimits are best-effort: V8 stops a worker that reaches its heap limit with
// ERR_WORKER_OUT_OF_MEMORY when the heap fills up with many small objects, but when one object
// grows large (a dictionary or an array that keeps doubling its backing store, as ical.js's date
// caches did under a rule that never matched) the allocation fails inside V8 and the whole
// process aborts with "FATAL ERROR: Reached heap limit" (nodejs/node#47224). So the parse worker
// gets a hard V8 limit with room above the feed's limit, and this watchdog asks the worker for
// its heap figures every few tens of milliseconds (answered between two JavaScript
// instructions, so also while it spins) and terminates it as soon as it uses more than the
// feed's limit: the feed's fetch fails with its memory-limit reason while V8 is still far from
// its own. A command-line --max-old-space-size would override the worker's resourceLimits
// (nodejs/node#43991); the watchdog's limit holds whatever the flags.

import type { Worker } from 'node:worker_threads';

/** How often the worker's heap is looked at. */
export const WATCH_EVERY_MS = 25;

/** V8's own limit for a worker watched at `limitMb`: room for what grows between two looks. */
export function hardLimitMb(limitMb: number): number {
  return limitMb * 2 + 32;
}

/**
 * Calls `onOver` (once) and terminates the worker when its used heap passes `limitMb`. Returns
 * the function that stops watching (also called by itself when the worker exits).
 */
export function watchHeap(worker: Worker, limitMb: number, onOver: (usedMb: number) => void): () => void {
  const limit = limitMb * 1024 * 1024;
  let looking = false;
  let done = false;
  const look = async () => {
    if (looking || done) return;
    looking = true;
    try {
      const { used_heap_size: used } = await worker.getHeapStatistics();
      if (used > limit && !done) {
        stop();
        onOver(Math.round(used / 1024 / 1024));
        await worker.terminate();
      }
    } catch {
      // The worker has ended meanwhile: nothing to watch.
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(look, WATCH_EVERY_MS);
  timer.unref();
  const stop = () => {
    done = true;
    clearInterval(timer);
  };
  worker.once('exit', stop);
  return stop;
}
