// The body of a calendar parse worker (a worker thread started by parse-job.ts, one per fetch):
// decodes and expands the downloaded feed, then, fed the stored occurrences page by page, works
// out the writes and sends them back as ready-made batches. Everything CPU- and memory-heavy
// about a feed happens here, inside the worker's own heap limit, never on the event loop that
// answers requests.
//
// Messages in: workerData {body, contentType, options}; then {type: 'stored', rows} (any number),
// then {type: 'next', maxRows} for each write.
// Messages out: {type: 'parsed', summary} or {type: 'problem', message}; then, for each 'next',
// {type: 'batch', batch}, or {type: 'done', counts} when nothing is left to write.
// Writes are asked for one at a time so the main thread sizes each statement to what it can run
// without a stall (store.ts), and never holds more than one batch.

import { parentPort, threadId, workerData } from 'node:worker_threads';
import { createDiff, type Diff, type StoredKey } from './diff.ts';
import { type ExpandOptions, expandCalendar } from './expand.ts';
import { decodeCalendar } from './ics-text.ts';
import { type EventProblem, FeedProblem } from './problems.ts';

export interface ParseInput {
  body: Uint8Array;
  contentType?: string;
  options: ExpandOptions;
}

export interface ParseSummary {
  /** Occurrences kept (at most the cap). */
  occurrences: number;
  /** Occurrences left out by the cap. */
  truncated: number;
  /** VEVENTs left out (no DTSTART, an unreadable date). */
  skipped: number;
  unknownZones: string[];
  /** Events left out or cut short, with the reason (at most MAX_PROBLEMS). */
  problems: EventProblem[];
  /** The thread that parsed (never the main thread's 0). */
  threadId: number;
  parseMs: number;
}

export type ToWorker = { type: 'stored'; rows: StoredKey[] } | { type: 'next'; maxRows: number };

const port = parentPort;
if (!port) throw new Error('parse-worker.ts runs as a worker thread (see parse-job.ts)');

function problemOf(error: unknown): string {
  return error instanceof FeedProblem
    ? error.message
    : `the calendar could not be read: ${String((error as Error)?.message ?? error).slice(0, 200)}`;
}

let diff: Diff | undefined;
try {
  const input = workerData as ParseInput;
  const started = performance.now();
  const expanded = expandCalendar(decodeCalendar(input.body, input.contentType), input.options);
  diff = createDiff(expanded.occurrences);
  const summary: ParseSummary = {
    occurrences: diff.total(),
    truncated: expanded.truncated,
    skipped: expanded.skipped,
    // Bounded, like every message to the main thread: it never receives more than a batch.
    unknownZones: expanded.unknownZones.slice(0, 20),
    problems: expanded.problems,
    threadId,
    parseMs: Math.round(performance.now() - started),
  };
  port.postMessage({ type: 'parsed', summary });
} catch (error) {
  port.postMessage({ type: 'problem', message: problemOf(error) });
  port.close();
}

port.on('message', (message: ToWorker) => {
  if (!diff) return;
  if (message.type === 'stored') diff.stored(message.rows);
  else {
    const batch = diff.next(message.maxRows);
    if (batch) port.postMessage({ type: 'batch', batch });
    else {
      port.postMessage({ type: 'done', counts: diff.counts() });
      port.close();
    }
  }
});
