// Parsing a pull's pages off the event loop: one worker thread per pull (page-worker.ts),
// started at its first page and stopped when the pull ends, with a heap limit
// (ONEROSTER_PARSE_MEMORY_MB). A page that needs more memory than that ends the worker with
// ERR_WORKER_OUT_OF_MEMORY: the pull fails (`parse_memory`), the server carries on.
//
// One worker per pull rather than per page: a pull of 20,000 students reads some 90 pages, and
// starting a worker costs about 0.1 s; rather than one shared pool: a worker's memory limit is
// then exactly one pull's, and a pull that exhausts it harms no other. At most
// MAX_PAGE_PARSES pages are parsed at once in a process (pulls in requests and the worker's
// may run side by side), so a burst of pulls cannot multiply the parse memory.
//
// diagnostics_channel 'ssp.oneroster.parse' tells subscribers of each page parsed (with the
// worker's thread id): tests can see that parsing happens in a worker.

import diagnosticsChannel from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import type { SourceRecord } from '../records.ts';
import type { PulledCollection } from './flatten.ts';
import type { PageReply, PageRequest } from './page-worker.ts';

/** Pages parsed at once in one process. */
export const MAX_PAGE_PARSES = 2;

export const pageParseChannel = diagnosticsChannel.channel('ssp.oneroster.parse');

export interface PageInput {
  collection: PulledCollection;
  body: Buffer;
  firstPosition: number;
}

export type ParsedPage = { kind: 'page'; count: number; records: SourceRecord[]; roles: SourceRecord[] };
export type PageProblem = { kind: 'problem'; code: 'invalid_answer' | 'parse_memory'; message: string };
export type ParsePage = (input: PageInput) => Promise<ParsedPage | PageProblem>;

let running = 0;
const queue: (() => void)[] = [];

async function takeTurn(): Promise<() => void> {
  if (running >= MAX_PAGE_PARSES) await new Promise<void>((resolve) => queue.push(resolve));
  running++;
  return () => {
    running--;
    queue.shift()?.();
  };
}

export interface PageParser {
  parse: ParsePage;
  /** Stops the worker (always call it, also after a failure). */
  close(): Promise<void>;
}

export function createPageParser(limits: { parseMemoryMb: number }): PageParser {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, (reply: PageReply | PageProblem) => void>();

  const start = (): Worker => {
    const started = new Worker(new URL('./page-worker.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: limits.parseMemoryMb, maxYoungGenerationSizeMb: 8 },
      stdout: false,
      stderr: false,
    });
    started.on('message', (reply: PageReply) => {
      pending.get(reply.id)?.(reply);
      pending.delete(reply.id);
    });
    // An out-of-memory (or any other end) fails the pages in flight; the next page, if any,
    // starts a new worker.
    const fail = (problem: PageProblem) => {
      if (worker === started) worker = undefined;
      for (const settle of pending.values()) settle(problem);
      pending.clear();
    };
    started.on('error', (error: Error & { code?: string }) =>
      fail(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? {
              kind: 'problem',
              code: 'parse_memory',
              message: `the page needs more memory to read than a pull may use (${limits.parseMemoryMb} MB; memory limit)`,
            }
          : {
              kind: 'problem',
              code: 'invalid_answer',
              message: `the page could not be read: ${String(error.message).slice(0, 200)}`,
            },
      ),
    );
    started.on('exit', (code) =>
      fail({
        kind: 'problem',
        code: 'parse_memory',
        message: `the page reader stopped (exit code ${code}); the memory limit is ${limits.parseMemoryMb} MB`,
      }),
    );
    return started;
  };

  async function parse(input: PageInput): Promise<ParsedPage | PageProblem> {
    const release = await takeTurn();
    try {
      worker ??= start();
      const id = nextId++;
      // Handed over, not copied, when the Buffer owns its memory (Buffer.concat of a large
      // answer); a view of a shared pool is copied first.
      const whole = input.body.byteOffset === 0 && input.body.buffer.byteLength === input.body.length;
      const body = whole ? new Uint8Array(input.body.buffer) : new Uint8Array(input.body);
      const reply = await new Promise<PageReply | PageProblem>((resolve) => {
        pending.set(id, resolve);
        worker!.postMessage(
          {
            id,
            collection: input.collection,
            body,
            firstPosition: input.firstPosition,
          } satisfies PageRequest,
          [body.buffer as ArrayBuffer],
        );
      });
      if (reply.kind === 'page') {
        pageParseChannel.publish({
          collection: input.collection,
          threadId: reply.threadId,
          count: reply.count,
        });
        const { records, roles } = JSON.parse(reply.json) as {
          records: SourceRecord[];
          roles: SourceRecord[];
        };
        return { kind: 'page', count: reply.count, records, roles };
      }
      return 'code' in reply ? reply : { kind: 'problem', code: 'invalid_answer', message: reply.message };
    } finally {
      release();
    }
  }

  return {
    parse,
    async close() {
      const stopping = worker;
      worker = undefined;
      if (stopping) {
        stopping.removeAllListeners('exit');
        await stopping.terminate();
      }
    },
  };
}
