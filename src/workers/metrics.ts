// What the process's metrics read from the database at scrape time: each worker's queue (depth
// and lag), the webhook delivery figures, and the PostgreSQL pool. Queues are the database's, not
// a process's, so every instance reports the same depth; job outcomes and durations are each
// process's own (src/lib/telemetry/jobs.ts).
//
// A new worker plugs in with one registerWorkerQueue() line below (its queue's one aggregate
// query, in its area's queries module) and by running each job through workerJob().
import type { Db } from '../db/db.ts';
import { selectFetchQueue } from '../domain/calendar/queries.ts';
import { selectEscalationQueue } from '../domain/inbox/queries.ts';
import { selectEmailQueue } from '../domain/notifications/queries.ts';
import { selectPullQueue } from '../domain/oneroster/pull/queries.ts';
import { webhookGauges, webhookMetrics } from '../domain/webhooks/metrics.ts';
import { selectDeliveryQueue } from '../domain/webhooks/queries.ts';
import type { Clock } from '../lib/clock.ts';
import { poolWait, registerPool, registerWorkerQueue } from '../lib/telemetry/metrics.ts';

/** Points the metrics at this database; returns the function that lets go of it again. */
export function registerDatabaseMetrics(db: Db, clock: Clock): () => void {
  const now = () => clock.now();
  const release = [
    registerWorkerQueue('webhooks', () => selectDeliveryQueue(db, now())),
    registerWorkerQueue('calendar', () => selectFetchQueue(db, now())),
    registerWorkerQueue('notifications', () => selectEmailQueue(db, now())),
    registerWorkerQueue('oneroster', () => selectPullQueue(db, now())),
    registerWorkerQueue('escalation', () => selectEscalationQueue(db, now())),
    webhookGauges.setSource(() => webhookMetrics(db, clock)),
    registerPoolMetrics(db),
  ];
  return () => {
    for (const letGo of release) letGo();
  };
}

/**
 * The PostgreSQL pool's connections and waits, alone: what the workers' thread reports of its own
 * pool (the queues are the database's, read by the server's scrape).
 */
export function registerPoolMetrics(db: Db): () => void {
  const pool = db.pool;
  if (!pool) return () => {};
  pool.onWait((seconds) => poolWait.observe(seconds));
  const unregister = registerPool(() => pool.status());
  return () => {
    pool.onWait(undefined);
    unregister();
  };
}
