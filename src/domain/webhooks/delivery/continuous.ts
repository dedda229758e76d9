// The delivery worker's continuous mode: claim as capacity frees up, launch each attempt, record
// results in batches on a later turn of the event loop (one flush at a time), and stop by letting
// in-flight attempts finish and their results be recorded before the connections close.
//
// Claiming ahead: a claim is a round trip of several milliseconds, in which a fast endpoint
// answers a hundred requests or more. So the loop claims for busy endpoints beyond the slots
// that are free (up to `claimAhead` more deliveries, with that much more room in the per-endpoint
// limit, the overflow pool and the worker's total; the slow class gets none), keeps those
// deliveries in a ready queue under their leases, and starts them as attempts finish, within the
// limits on attempts in flight (per endpoint and per worker). The next claim then runs while the
// ready queue keeps the connections busy. On stop, deliveries still waiting are given back (due
// again at once, their attempt uncounted).
//
// Attempts start in slices: starting one (its request opened, its body signed) is some 0.1-1 ms
// of the server's thread, and the 256 started as a claim arrives held requests for 0.3 s on a
// busy machine; so they start in slices with a turn of the event loop between (lib/turns.ts).
import { sleeper } from '../../../lib/poll-loop.ts';
import { createSlicedQueue } from '../../../lib/turns.ts';
import type { Claimed } from './claim.ts';
import type { ContinuousRounds } from './model.ts';
import { createReadyQueue, type Waiting } from './ready.ts';
import type { Result } from './state.ts';

export function continuousMode(rounds: ContinuousRounds) {
  const { shares, claimAhead, wakeAfterFinished, batchSize, idlePollMs, log, inflight } = rounds;
  const { claim, anyDue, take, giveBack, attemptOne, record, vacuum, pruneWhenDue } = rounds;
  let running = false;
  let loopDone: Promise<void> | undefined;
  const { sleep, wake } = sleeper();
  const idleSleep = idleSleeper(rounds, sleep, wake);
  let finishedSinceClaim = 0;
  const results = resultBatches(record, vacuum, log);
  const attempts = new Set<Promise<void>>();
  const givingBack = new Set<Promise<void>>();
  const ready = createReadyQueue({
    shares,
    timedOut: (endpoint) => inflight.timedOut(endpoint),
    start: launch,
    giveBack(deliveries) {
      // Their slots are free once given back: a claimer waiting for capacity may go on.
      const p = giveBack(deliveries).finally(() => {
        givingBack.delete(p);
        wake();
      });
      givingBack.add(p);
    },
  });

  const starts = createSlicedQueue(); // see the top of this file
  function launch({ delivery, abandon }: Waiting): void {
    const p: Promise<void> = new Promise<Result>((resolve) =>
      starts.run(() => resolve(attemptOne(delivery, abandon))),
    )
      .then((result) => {
        results.add(result);
      })
      .catch((error) => {
        // Not expected (an attempt reports every failure as a result); the lease will expire.
        log?.error({ err: error, delivery_id: delivery.id }, 'webhook delivery attempt crashed');
      })
      .finally(() => {
        attempts.delete(p);
        ready.finished(delivery.endpoint_id, running);
        finishedSinceClaim++;
        if (finishedSinceClaim >= wakeAfterFinished || inflight.count === 0) wake();
      });
    attempts.add(p);
  }

  async function loop(): Promise<void> {
    // Taken (waiting or in flight) at most: the worker's slots and the claims ahead.
    const most = shares.concurrency + claimAhead;
    let idle = false; // the last claim found nothing: poll the due index (one row) before claiming
    while (running) {
      if (most - inflight.count < wakeAfterFinished) {
        await sleep(idlePollMs * 20); // woken as deliveries finish
        continue;
      }
      let claimed: Claimed[];
      let requested: number;
      try {
        finishedSinceClaim = 0;
        idleSleep.polling();
        requested = Math.min(batchSize, most - inflight.count);
        claimed = idle && !(await anyDue()) ? [] : await claim(requested, claimAhead > 0);
      } catch (error) {
        log?.error({ err: error }, 'claiming webhook deliveries failed');
        await sleep(1_000);
        continue;
      }
      const since = performance.now();
      idle = claimed.length === 0;
      ready.add(claimed.map((delivery) => ({ delivery, abandon: take(delivery), since })));
      if (!running) break;
      // Fewer than asked for (nothing more due, or endpoints at their limit): sleep until the
      // poll interval or until enough deliveries finish to make the next claim a batch.
      // A full claim: claim again at once.
      if (claimed.length < requested) {
        await pruneWhenDue();
        await idleSleep.sleep(() => running);
      } else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  return {
    start(): void {
      if (running || rounds.isClosed()) return;
      running = true;
      logStarted(rounds);
      loopDone = loop();
    },
    async stop(): Promise<void> {
      running = false;
      idleSleep.close();
      wake();
      await loopDone;
      await giveBack(ready.drain());
      await Promise.allSettled([...attempts, ...givingBack]);
      await results.drain();
      await rounds.close();
    },
  };
}

function logStarted({ log, workerId, leaseMs, renewEveryMs }: ContinuousRounds): void {
  log?.info(
    { worker: workerId, lease_ms: leaseMs, renew_every_ms: renewEveryMs },
    'webhook delivery worker started',
  );
}

/**
 * The idle worker's sleep between polls. Without `commits`, `idlePollMs`. With it (the embedded
 * database, which only this process writes to, so that every new delivery comes with a transaction
 * committed here): until a transaction commits, but at least `idlePollMs` and at most
 * `quietPollMs`, the interval for what falls due by the clock alone (retries). `polling()` marks
 * the start of a poll: a commit after it, which the poll may have missed, makes the next sleep the
 * short one.
 */
function idleSleeper(
  rounds: Pick<ContinuousRounds, 'idlePollMs' | 'quietPollMs' | 'commits'>,
  sleep: (ms: number) => Promise<void>,
  wake: () => void,
) {
  const { idlePollMs, quietPollMs, commits } = rounds;
  let committed = false;
  let waiting = false;
  const unlisten = commits?.listen(() => {
    committed = true;
    if (waiting) wake();
  });
  return {
    polling(): void {
      committed = false;
    },
    async sleep(running: () => boolean): Promise<void> {
      await sleep(idlePollMs);
      if (!commits || committed || !running()) return;
      waiting = true;
      try {
        await sleep(Math.max(0, quietPollMs - idlePollMs));
      } finally {
        waiting = false;
      }
    },
    close(): void {
      unlisten?.();
    },
  };
}

/**
 * Results are recorded in batches: a flush starts on a later turn of the event loop (after
 * every response already received has been handled) and one flush runs at a time.
 */
function resultBatches(
  record: ContinuousRounds['record'],
  vacuum: ContinuousRounds['vacuum'],
  log: ContinuousRounds['log'],
) {
  const pendingResults: Result[] = [];
  let flushing: Promise<void> | undefined;
  let flushScheduled = false;
  function flushSoon(): void {
    if (flushScheduled || flushing) return;
    flushScheduled = true;
    setImmediate(flushNow);
  }
  function flushNow(): void {
    flushScheduled = false;
    if (flushing || pendingResults.length === 0) return;
    const batch = pendingResults.splice(0, pendingResults.length);
    flushing = record(batch)
      .then(() => vacuum(batch.length))
      .catch((error) => {
        log?.error(
          { err: error, count: batch.length },
          'recording webhook results failed; leases will expire',
        );
      })
      .finally(() => {
        flushing = undefined;
        if (pendingResults.length > 0) flushSoon();
      });
  }
  return {
    add(result: Result): void {
      pendingResults.push(result);
      flushSoon();
    },
    /** Records every result added, waiting for a flush under way first. */
    async drain(): Promise<void> {
      while (flushing || pendingResults.length > 0) {
        if (!flushing) flushNow();
        await flushing;
      }
    },
  };
}
