// Keeping leases while attempts run (a heartbeat), so a short lease is enough for a slow
// attempt and a dead worker's deliveries fall due again within one lease (10 s by default)
// instead of a lease long enough for any attempt.
//
// Cost: one UPDATE every `renewEveryMs` (3 s by default) for all of this worker's leases due
// for renewal, by primary key; none while no attempt has run longer than that, so fast
// endpoints cost nothing here. The renewal locks rows in id order with SKIP LOCKED: it never
// waits for a result being recorded nor for an administrator's change, and so cannot deadlock
// with them (a row skipped is renewed at the next beat).
//
// One delivery never runs twice at the same time: another worker claims a row only once its
// lease has expired, and the owner abandons an attempt (aborts the request) before that:
// - at once when a renewal finds the lease taken (another token, or the delivery no longer
//   pending: an administrator disabled the endpoint);
// - when no renewal has succeeded for `leaseMs - renewEveryMs` (the database is unreachable, or
//   the renewals are too slow), counting from when the last successful renewal was sent, which
//   leaves `renewEveryMs` for clock differences between workers and for the abort itself.
// An abandoned attempt records only its attempt line, never the delivery's state (state.ts).
// On failure (a database error) a renewal is logged and tried again at the next beat.
import type { Queryable } from '../../../db/db.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { Claimed } from './claim.ts';
import { type LeaseStatus, renewLeaseRows, returnLeaseRows } from './sql/leases.ts';

export interface LeaseLogger {
  warn(obj: object, msg?: string): void;
}

interface Held {
  token: string;
  /** When the last successful claim or renewal was sent (performance.now()). */
  renewedAt: number;
  abandon: AbortController;
}

export function createLeaseKeeper(deps: {
  db: Queryable;
  clock: Clock;
  leaseMs: number;
  renewEveryMs: number;
  log?: LeaseLogger;
}) {
  const { leaseMs, renewEveryMs } = deps;
  if (renewEveryMs * 2 > leaseMs)
    throw new Error(`the lease (${leaseMs} ms) must last at least two renewals (${renewEveryMs} ms each)`);
  const held = new Map<string, Held>();
  let timer: NodeJS.Timeout | undefined;
  let renewing: Promise<void> | undefined;

  function lose(id: string, h: Held, reason: string): void {
    if (held.get(id) !== h) return;
    held.delete(id);
    h.abandon.abort(reason);
    deps.log?.warn({ delivery_id: id, reason }, 'webhook delivery abandoned: lease lost');
  }

  function beat(): void {
    const now = performance.now();
    const due: { id: string; token: string }[] = [];
    for (const [id, h] of held) {
      if (now - h.renewedAt >= leaseMs - renewEveryMs)
        lose(id, h, `no lease renewal for ${Math.round(now - h.renewedAt)} ms`);
      else if (now - h.renewedAt >= renewEveryMs) due.push({ id, token: h.token });
    }
    if (due.length > 0 && !renewing)
      renewing = renew(due).finally(() => {
        renewing = undefined;
      });
    if (held.size === 0) stopTimer();
  }

  async function renew(due: { id: string; token: string }[]): Promise<void> {
    const sentAt = performance.now();
    const sent = new Map(due.map((d) => [d.id, d.token]));
    try {
      const statuses = await renewLeases(deps.db, due, new Date(deps.clock.now().getTime() + leaseMs));
      for (const { id, status } of statuses) {
        const h = held.get(id);
        if (!h || h.token !== sent.get(id)) continue;
        if (status === 'renewed') h.renewedAt = Math.max(h.renewedAt, sentAt);
        else if (status === 'lost')
          lose(id, h, 'the lease was taken over or the delivery is no longer pending');
      }
    } catch (error) {
      deps.log?.warn({ err: error, count: due.length }, 'renewing webhook delivery leases failed');
    }
  }

  function stopTimer(): void {
    if (timer) clearInterval(timer);
    timer = undefined;
  }

  return {
    /** Holds the lease of a claimed delivery until release(); the controller is aborted if the lease is lost. */
    hold(delivery: Claimed): AbortController {
      const abandon = new AbortController();
      held.set(delivery.id, { token: delivery.lease_token, renewedAt: delivery.held_since, abandon });
      if (!timer) {
        // Checked several times per renewal period, so an overdue lease is abandoned promptly.
        timer = setInterval(beat, Math.max(10, Math.floor(renewEveryMs / 3)));
        timer.unref();
      }
      return abandon;
    },
    /** Whether the lease is still held (the attempt's result may count). */
    isHeld(delivery: { id: string; lease_token: string }): boolean {
      return held.get(delivery.id)?.token === delivery.lease_token;
    },
    /**
     * The result is recorded (or the attempt is over without one); returns whether the lease was
     * still held. Until then the lease is renewed, so that a result waiting for its batch to be
     * written is never claimed and sent again by another worker.
     */
    release(delivery: { id: string; lease_token: string }): boolean {
      const h = held.get(delivery.id);
      if (!h || h.token !== delivery.lease_token) return false;
      held.delete(delivery.id);
      if (held.size === 0) stopTimer();
      // A lost lease leaves `held` when it is lost, so one found here is still held (its
      // controller may have been aborted by the attempt's own timeout, which is no loss).
      return true;
    },
    /** Stops renewing (after the last attempt has been released). */
    async close(): Promise<void> {
      stopTimer();
      await renewing;
    },
  };
}

export type LeaseKeeper = ReturnType<typeof createLeaseKeeper>;

/**
 * Moves these leases' expiry (and due time) to `until` where the token still matches; says for
 * each whether it was renewed, skipped because the row is locked at this moment ("busy": try
 * again), or lost.
 */
export async function renewLeases(
  db: Queryable,
  leases: { id: string; token: string }[],
  until: Date,
): Promise<{ id: string; status: LeaseStatus }[]> {
  return renewLeaseRows(db, leases, until);
}

/**
 * Gives back deliveries claimed but never attempted (where the token still matches): due again
 * at `now`, the lease cleared and the attempt the claim counted taken back.
 */
export async function returnLeases(
  db: Queryable,
  leases: { id: string; lease_token: string }[],
  now: Date,
): Promise<void> {
  await returnLeaseRows(db, leases, now);
}
