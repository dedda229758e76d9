// What one worker has in flight, per endpoint, and which endpoints timed out recently: the
// mutable side of the capacity classes (capacity.ts holds the rules). Times are
// performance.now(): wall time of this process, not the injected clock, because they measure
// how long real requests take.
import type { Outcome } from '../schedule.ts';
import type { EndpointLoad } from './capacity.ts';

export function createInflight(options: {
  /** How long an endpoint whose attempt timed out stays slow, between its attempts. */
  slowMemoryMs: number;
}) {
  // Endpoint -> (delivery id -> start).
  const byEndpoint = new Map<string, Map<string, number>>();
  // Endpoint -> time until which it counts as slow.
  const slowUntil = new Map<string, number>();
  let count = 0;

  return {
    /** Deliveries in flight in this worker. */
    get count(): number {
      return count;
    },
    add(delivery: { id: string; endpoint_id: string }): void {
      let attempts = byEndpoint.get(delivery.endpoint_id);
      if (!attempts) {
        attempts = new Map();
        byEndpoint.set(delivery.endpoint_id, attempts);
      }
      attempts.set(delivery.id, performance.now());
      count++;
    },
    /** Its attempt starts now (it was taken earlier, claimed ahead): its time counts from now. */
    started(delivery: { id: string; endpoint_id: string }): void {
      const attempts = byEndpoint.get(delivery.endpoint_id);
      if (attempts?.has(delivery.id)) attempts.set(delivery.id, performance.now());
    },
    remove(delivery: { id: string; endpoint_id: string }): void {
      const attempts = byEndpoint.get(delivery.endpoint_id);
      if (!attempts?.delete(delivery.id)) return;
      if (attempts.size === 0) byEndpoint.delete(delivery.endpoint_id);
      count--;
    },
    /** One of this endpoint's attempts timed out recently. */
    timedOut(endpoint: string): boolean {
      return (slowUntil.get(endpoint) ?? 0) > performance.now();
    },
    /** A timeout keeps the endpoint slow for a while; a success ends that at once. */
    noteOutcome(endpoint: string, outcome: Outcome): void {
      const now = performance.now();
      for (const [e, until] of slowUntil) if (until <= now) slowUntil.delete(e);
      if (outcome === 'timeout') slowUntil.set(endpoint, now + options.slowMemoryMs);
      else if (outcome === 'success') slowUntil.delete(endpoint);
    },
    /** A snapshot for capacity(), with the time it was taken. */
    loads(): { now: number; loads: Map<string, EndpointLoad> } {
      const now = performance.now();
      const loads = new Map<string, EndpointLoad>();
      for (const [endpoint, attempts] of byEndpoint) {
        let oldest = Number.POSITIVE_INFINITY;
        for (const t of attempts.values()) if (t < oldest) oldest = t;
        loads.set(endpoint, {
          inFlight: attempts.size,
          oldestStartedAt: oldest,
          recentlyTimedOut: (slowUntil.get(endpoint) ?? 0) > now,
        });
      }
      return { now, loads };
    },
  };
}

export type Inflight = ReturnType<typeof createInflight>;
