// Queue depth and delivery outcomes over every institution (the operator's view). Four reads, each
// of a partial index or a time window, never of the whole delivery history.
import type { Queryable } from '../../db/db.ts';
import {
  selectAttemptOutcomes,
  selectEndpointCounts,
  selectFailedCounts,
  selectQueueCounts,
} from './queries.ts';

export async function deliveryMetrics(db: Queryable, now: Date) {
  const queue = await selectQueueCounts(db, now);
  const failed = await selectFailedCounts(db, now);
  const attempts = await selectAttemptOutcomes(db, now);
  const endpoints = await selectEndpointCounts(db);
  return {
    queue: { ...queue, ...failed },
    attempts: Object.fromEntries(
      attempts.map((a) => [a.outcome, { last_hour: a.last_hour, last_day: a.last_day }]),
    ),
    endpoints,
    measured_at: now,
  };
}
