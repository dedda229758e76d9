// The operator's delivery metrics (../../metrics.ts): four aggregates, each reading a partial
// index or a time window, never the whole delivery history.
import type { Queryable } from '../../../../db/db.ts';

export interface QueueCounts {
  pending: number;
  due: number;
  in_flight: number;
  retrying: number;
  oldest_due_age_seconds: number;
}

export async function queueCounts(q: Queryable, now: Date): Promise<QueueCounts> {
  const { rows } = await q.query<QueueCounts>(
    `SELECT count(*) AS pending,
            count(*) FILTER (WHERE next_attempt_at <= $1 AND lease_until IS NULL) AS due,
            count(*) FILTER (WHERE lease_until > $1) AS in_flight,
            count(*) FILTER (WHERE next_attempt_at > $1 AND attempts > 0
                                   AND (lease_until IS NULL OR lease_until <= $1)) AS retrying,
            COALESCE(EXTRACT(EPOCH FROM ($1 - min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1))), 0)::float8
              AS oldest_due_age_seconds
     FROM webhook_deliveries WHERE state = 'pending'`,
    [now],
  );
  return rows[0];
}

export async function failedCounts(
  q: Queryable,
  now: Date,
): Promise<{ failed: number; failed_last_day: number }> {
  const { rows } = await q.query<{ failed: number; failed_last_day: number }>(
    `SELECT count(*) AS failed, count(*) FILTER (WHERE completed_at > $1::timestamptz - interval '1 day') AS failed_last_day
     FROM webhook_deliveries WHERE state = 'failed'`,
    [now],
  );
  return rows[0];
}

export async function attemptCounts(
  q: Queryable,
  now: Date,
): Promise<{ outcome: string; last_hour: number; last_day: number }[]> {
  const { rows } = await q.query<{ outcome: string; last_hour: number; last_day: number }>(
    `SELECT outcome, count(*) FILTER (WHERE attempted_at > $1::timestamptz - interval '1 hour') AS last_hour,
            count(*) AS last_day
     FROM webhook_attempts WHERE attempted_at > $1::timestamptz - interval '1 day' GROUP BY outcome ORDER BY outcome`,
    [now],
  );
  return rows;
}

export async function endpointCounts(q: Queryable): Promise<{ enabled: number; disabled: number }> {
  const { rows } = await q.query<{ enabled: number; disabled: number }>(
    'SELECT count(*) FILTER (WHERE enabled) AS enabled, count(*) FILTER (WHERE NOT enabled) AS disabled FROM webhook_endpoints',
  );
  return rows[0];
}
