// The workers' thread's entry (node:worker_threads; src/workers-thread/start.ts starts it).
// OpenTelemetry, when the configuration asks for it, starts before the workers' modules load,
// as the process entries do it (bin/serve.js), so their jobs' spans are exported from here too.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.ts';
import type { ThreadSettings } from './messages.ts';

const { config, settings } = workerData as { config: Config; settings: ThreadSettings };
if (config.tracing) await (await import('../lib/telemetry/tracing.ts')).startTracing();
const { runWorkersThread } = await import('./thread.ts');
if (!parentPort) throw new Error('the workers thread runs in a worker thread');
await runWorkersThread(parentPort, config, settings);
