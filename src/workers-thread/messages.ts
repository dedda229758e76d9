// What the server's thread and the workers' thread say to each other (src/workers-thread/).
import type { FetchLimits } from '../domain/calendar/schedule.ts';
import type { MetricsJson } from '../lib/telemetry/metrics.ts';

/** What the thread's runtime takes besides the configuration (a benchmark's calendar limits). */
export interface ThreadSettings {
  calendarLimits?: Partial<FetchLimits>;
}

/** From the server's thread. */
export type ToWorkers =
  | { kind: 'start' }
  /** "Sync now" was answered by the server: the pull worker claims at once. */
  | { kind: 'pull-requested' }
  | { kind: 'metrics'; id: number }
  | { kind: 'stop' };

/** From the workers' thread. */
export type FromWorkers =
  | { kind: 'ready' }
  | { kind: 'metrics'; id: number; metrics: MetricsJson }
  | { kind: 'stopped' };
