// The continuous mode's ready queue: deliveries claimed ahead of free attempt slots (taken: their
// leases held), per endpoint in claim order, and the attempts running, per endpoint and in all.
// A waiting delivery starts within the limits on attempts in flight (capacity.ts): its
// endpoint's first `fairShare`, then beyond that from the overflow pool (`overflowShare` for all
// endpoints together) up to `perEndpoint`, and `concurrency` in all; endpoints take turns for
// the shared slots. An endpoint
// that turns slow while its deliveries wait (one of its attempts timed out, or its oldest waiting
// delivery has waited longer than `slowAfterMs`) has them given back instead: the slow class is
// claimed, within its share, by the claim query's own branch, never from this queue.

import type { Shares } from './capacity.ts';
import type { Claimed } from './claim.ts';

export interface Waiting {
  delivery: Claimed;
  abandon: AbortController;
  /** When it was claimed (performance.now()). */
  since: number;
}

export interface ReadyQueueDeps {
  shares: Shares;
  /** One of this endpoint's attempts timed out recently in this worker. */
  timedOut: (endpoint: string) => boolean;
  /** Starts an attempt (the queue counts it as running until finished() is called). */
  start: (waiting: Waiting) => void;
  /** Gives back deliveries that will not be attempted by this worker. */
  giveBack: (deliveries: Claimed[]) => void;
}

export function createReadyQueue(deps: ReadyQueueDeps) {
  const { shares } = deps;
  const waiting = new Map<string, Waiting[]>();
  const running = new Map<string, number>();
  let runningCount = 0;
  // Attempts running beyond their endpoint's fair share, all endpoints together.
  let overflowCount = 0;
  let waitingCount = 0;

  /** Starts one endpoint's waiting deliveries while there is room; says whether it started any. */
  function pumpOne(endpoint: string, queue: Waiting[]): boolean {
    if (deps.timedOut(endpoint) || performance.now() - queue[0].since > shares.slowAfterMs) {
      waiting.delete(endpoint);
      waitingCount -= queue.length;
      deps.giveBack(queue.map((w) => w.delivery));
      return false;
    }
    let n = running.get(endpoint) ?? 0;
    let started = false;
    while (
      queue.length > 0 &&
      n < shares.perEndpoint &&
      runningCount < shares.concurrency &&
      (n < shares.fairShare || overflowCount < shares.overflowShare)
    ) {
      const next = queue.shift()!;
      waitingCount--;
      if (n >= shares.fairShare) overflowCount++;
      n++;
      running.set(endpoint, n);
      runningCount++;
      started = true;
      deps.start(next);
    }
    if (queue.length === 0) waiting.delete(endpoint);
    return started;
  }

  /** Starts waiting deliveries of every endpoint, in turn (one that had its turn goes to the back). */
  function pump(): void {
    for (const [endpoint, queue] of [...waiting]) {
      if (runningCount >= shares.concurrency) return;
      if ((running.get(endpoint) ?? 0) >= shares.perEndpoint) continue;
      if (pumpOne(endpoint, queue) && queue.length > 0) {
        waiting.delete(endpoint);
        waiting.set(endpoint, queue);
      }
    }
  }

  return {
    get waiting(): number {
      return waitingCount;
    },
    get running(): number {
      return runningCount;
    },
    /** Newly claimed and taken deliveries: queued, and started where there is room. */
    add(claimed: Waiting[]): void {
      for (const w of claimed) {
        const queue = waiting.get(w.delivery.endpoint_id);
        if (queue) queue.push(w);
        else waiting.set(w.delivery.endpoint_id, [w]);
      }
      waitingCount += claimed.length;
      pump();
    },
    /** An attempt started by this queue is over: its endpoint's next delivery may start. */
    finished(endpoint: string, startMore: boolean): void {
      const n = (running.get(endpoint) ?? 1) - 1;
      if (n > 0) running.set(endpoint, n);
      else running.delete(endpoint);
      // When the worker's slots or the overflow pool were all taken, a shared slot is free now,
      // for whichever endpoint is next.
      const sharedWasFull = runningCount >= shares.concurrency || overflowCount >= shares.overflowShare;
      runningCount--;
      if (n >= shares.fairShare) overflowCount--;
      if (!startMore) return;
      if (sharedWasFull) pump();
      else {
        const queue = waiting.get(endpoint);
        if (queue) pumpOne(endpoint, queue);
      }
    },
    /** Empties the queue (the worker stops), returning what was waiting. */
    drain(): Claimed[] {
      const all = [...waiting.values()].flat().map((w) => w.delivery);
      waiting.clear();
      waitingCount = 0;
      return all;
    },
  };
}
