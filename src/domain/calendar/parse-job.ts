// Parsing a feed off the event loop: each fetch gets its own worker thread (parse-worker.ts)
// with its own heap limit and a time limit. A feed that needs more memory or time than that
// ends as a FeedProblem (a failed fetch with a reason), the worker is stopped, and the server
// carries on: an out-of-memory in a worker ends that worker only.
//
// One worker per fetch rather than a long-lived pool, because:
// - the memory limit is then exactly one feed's: the heap a 10 MB calendar needed (a few hundred
//   MB) is handed back when its worker ends, not kept by an idle worker, and an idle server
//   holds no parser at all;
// - stopping a feed at its time or memory limit is the normal end of a worker, not a repair of
//   a shared one;
// - nothing one institution's calendar leaves in ical.js (a process-wide library) can change
//   how another's is read.
// What it costs: a worker starts in about 0.1 s and its code starts cold, small next to a
// feed fetched at most every 5 minutes. At most MAX_PARSE_WORKERS run at once per process (the
// others wait for a turn), so a burst of due feeds cannot multiply the memory limit, and one
// institution holds at most PARSE_WORKERS_PER_INSTITUTION of them, turns served round robin by
// institution (parse-slots.ts): one tenant's feeds cannot hold up another's.
//
// Memory: the feed's limit is enforced by a watchdog (heap-watchdog.ts) that terminates the
// worker when its heap passes it; V8's own limit (resourceLimits) is set well above, because V8
// reaching it can abort the whole process rather than the worker alone. Every message from the
// worker is bounded (a summary with at most 20 problems, one batch of at most maxRows rows), so
// the main thread never receives a calendar-sized result.
//
// diagnostics_channel 'ssp.calendar.parse' tells subscribers when a parse starts and ends (with
// the worker's thread id): tests and operators can see that parsing happens in a worker.

import diagnosticsChannel from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import type { DiffCounts, StoredKey, WriteBatch } from './diff.ts';
import { hardLimitMb, watchHeap } from './heap-watchdog.ts';
import { createParseSlots } from './parse-slots.ts';
import type { ParseInput, ParseSummary, ToWorker } from './parse-worker.ts';
import { FeedProblem } from './problems.ts';

/** Parse workers running at once in one process. */
export const MAX_PARSE_WORKERS = 2;
/** Of which one institution holds at most this many. */
export const PARSE_WORKERS_PER_INSTITUTION = 1;

export const parseChannel = diagnosticsChannel.channel('ssp.calendar.parse');

export interface ParseEvent {
  stage: 'start' | 'parsed' | 'failed';
  threadId: number;
  institutionId: string;
  summary?: ParseSummary;
  error?: string;
}

export interface ParseLimits {
  timeoutMs: number;
  memoryMb: number;
}

type FromWorker =
  | { type: 'parsed'; summary: ParseSummary }
  | { type: 'problem'; message: string }
  | { type: 'batch'; batch: WriteBatch }
  | { type: 'done'; counts: DiffCounts };

const slots = createParseSlots({ slots: MAX_PARSE_WORKERS, perInstitution: PARSE_WORKERS_PER_INSTITUTION });

/** The parse slots in use and waited for (operators, tests). */
export const parseSlots = () => slots.state();

export interface ParseJob {
  summary: ParseSummary;
  /** One page of the feed's stored occurrences. */
  sendStored(rows: StoredKey[]): void;
  /** The next write of at most `maxRows` rows, or the counts when all were handed out. */
  nextWrite(maxRows: number): Promise<WriteBatch | DiffCounts>;
  /** Stops the worker (always call it, also after a failure). */
  close(): Promise<void>;
}

const megabytes = (mb: number) => (mb >= 1024 ? `${mb / 1024} GB` : `${mb} MB`);

/**
 * Starts a worker on the body and waits for its parse. Throws FeedProblem when the calendar is
 * unusable or over a limit; the worker is then already stopped.
 */
/** A worker started on the feed's bytes, with V8's hard limit above the watchdog's. */
function spawnParser(input: ParseInput, limits: ParseLimits): Worker {
  // A copy to hand over: the download's Buffer may be a view of a shared pool.
  const body = new Uint8Array(input.body);
  return new Worker(new URL('./parse-worker.ts', import.meta.url), {
    workerData: { ...input, body } satisfies ParseInput,
    transferList: [body.buffer],
    resourceLimits: { maxOldGenerationSizeMb: hardLimitMb(limits.memoryMb), maxYoungGenerationSizeMb: 32 },
    stdout: false,
    stderr: false,
  });
}

const overMemory = (limits: ParseLimits) =>
  new FeedProblem(
    `the calendar needs more memory to read than a feed may use (${megabytes(limits.memoryMb)}; memory limit)`,
  );

/** What a worker's 'error' event means for the feed. */
function problemOf(error: Error & { code?: string }, limits: ParseLimits): FeedProblem {
  return error.code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? overMemory(limits)
    : new FeedProblem(`the calendar could not be read: ${String(error.message).slice(0, 200)}`);
}

export async function startParse(
  institutionId: string,
  input: ParseInput,
  limits: ParseLimits,
): Promise<ParseJob> {
  const release = await slots.take(institutionId);
  let worker: Worker;
  try {
    worker = spawnParser(input, limits);
  } catch (error) {
    release();
    throw error;
  }
  const threadId = worker.threadId;
  parseChannel.publish({ stage: 'start', threadId, institutionId } satisfies ParseEvent);

  const inbox: FromWorker[] = [];
  let failure: FeedProblem | undefined;
  let wake: (() => void) | undefined;
  let closed = false;
  const fail = (problem: FeedProblem) => {
    failure ??= problem;
    wake?.();
  };
  worker.on('message', (message: FromWorker) => {
    inbox.push(message);
    wake?.();
  });
  watchHeap(worker, limits.memoryMb, () => fail(overMemory(limits)));
  worker.on('error', (error: Error & { code?: string }) => fail(problemOf(error, limits)));
  worker.on('exit', (code) => {
    release();
    if (!closed) fail(new FeedProblem(`the calendar reader stopped unexpectedly (exit code ${code})`));
  });

  const close = async () => {
    if (closed) return;
    closed = true;
    await worker.terminate();
    release();
  };

  /** The next message, within the deadline (a message that arrived before a failure comes first). */
  const next = async (deadline: number): Promise<FromWorker> => {
    for (;;) {
      const message = inbox.shift();
      if (message) return message;
      if (failure) throw failure;
      const wait = deadline - performance.now();
      if (wait <= 0) {
        fail(
          new FeedProblem(`the calendar takes longer than ${limits.timeoutMs / 1000} s to read (time limit)`),
        );
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, wait);
      });
      clearTimeout(timer);
      wake = undefined;
    }
  };

  let summary: ParseSummary;
  try {
    const first = await next(performance.now() + limits.timeoutMs);
    if (first.type === 'problem') throw new FeedProblem(first.message);
    if (first.type !== 'parsed') throw new Error(`unexpected message from the parse worker: ${first.type}`);
    summary = first.summary;
  } catch (error) {
    await close();
    parseChannel.publish({
      stage: 'failed',
      threadId,
      institutionId,
      error: String(error),
    } satisfies ParseEvent);
    throw error;
  }
  parseChannel.publish({ stage: 'parsed', threadId, institutionId, summary } satisfies ParseEvent);

  return {
    summary,
    sendStored(rows) {
      worker.postMessage({ type: 'stored', rows } satisfies ToWorker);
    },
    async nextWrite(maxRows) {
      worker.postMessage({ type: 'next', maxRows } satisfies ToWorker);
      const message = await next(performance.now() + limits.timeoutMs);
      if (message.type === 'done') return message.counts;
      if (message.type !== 'batch')
        throw new Error(`unexpected message from the parse worker: ${message.type}`);
      return message.batch;
    },
    close,
  };
}
