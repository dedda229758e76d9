// One background job (a webhook delivery, a calendar fetch, an email, a OneRoster pull): timed
// into ssp_worker_job_duration_seconds by worker and outcome, and a span of its own when tracing
// is on. A worker wraps each job in workerJob(); with registerWorkerQueue() (./metrics.ts) that
// is all a new worker needs to be seen (docs/operations.md).
import { workerJobDuration } from './metrics.ts';
import { tracing } from './tracing.ts';

export interface JobOptions<T> {
  /** Span attributes: ids that let an operator find the job (never personal data). */
  attributes?: Record<string, string | number>;
  /** The job's outcome label from its result (default `ok`); a job that throws is `error`. */
  outcome?: (result: T) => string;
}

export async function workerJob<T>(
  worker: string,
  fn: () => Promise<T>,
  options: JobOptions<T> = {},
): Promise<T> {
  const started = performance.now();
  let outcome = 'error';
  const run = async () => {
    const result = await fn();
    outcome = options.outcome?.(result) ?? 'ok';
    return result;
  };
  try {
    const traced = tracing();
    return traced
      ? await traced.inSpan(`${worker} job`, { 'ssp.worker': worker, ...options.attributes }, run)
      : await run();
  } finally {
    workerJobDuration.observe({ worker, outcome }, (performance.now() - started) / 1000);
  }
}
