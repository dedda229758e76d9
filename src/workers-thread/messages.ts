// What the server's thread and the workers' thread say to each other (src/workers-thread/).
import type { MetricsJson } from '../lib/telemetry/metrics.ts';

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
