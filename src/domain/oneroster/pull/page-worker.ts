// The body of a OneRoster page parser (a worker thread started by page-parser.ts, one per
// pull): each page's JSON is decoded and flattened here (flatten.ts), inside the worker's own
// heap limit, so a provider's 30 MB page never stalls the event loop that answers requests, and
// a page needing more memory than a pull may use ends this worker, not the server.
//
// Message in: {id, collection, body, firstPosition} (body transferred). Message out: {id, kind:
// 'page', count, json} (json: {records, roles}, roles of users being 1.2's roles records), or
// {id, kind: 'problem', message}.
import { parentPort, threadId } from 'node:worker_threads';
import type { SourceRecord } from '../records.ts';
import { flatten, type PulledCollection, rolesOf } from './flatten.ts';

export interface PageRequest {
  id: number;
  collection: PulledCollection;
  body: Uint8Array;
  /** The position (1-based) of the page's first record in its collection. */
  firstPosition: number;
}

export type PageReply =
  | {
      id: number;
      kind: 'page';
      count: number;
      /**
       * {records, roles} as JSON: one string crosses to the main thread (and is parsed there, a
       * few ms a page) faster than the objects are cloned, and the worker's heap stays smaller
       * (measured, 20,000 students: the pull's reading 3.7-4.1 s and 112-115 MB against 4.1-4.3 s
       * and 128-130 MB).
       */
      json: string;
      threadId: number;
    }
  | { id: number; kind: 'problem'; message: string };

const port = parentPort;
if (!port) throw new Error('page-worker.ts runs as a worker thread (see page-parser.ts)');

function parse(request: PageRequest): PageReply {
  const { id, collection, firstPosition } = request;
  let body: unknown;
  try {
    body = JSON.parse(
      Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength).toString('utf8'),
    );
  } catch {
    return { id, kind: 'problem', message: 'the answer is not JSON' };
  }
  const objects = (body as Record<string, unknown> | null)?.[collection];
  if (!Array.isArray(objects))
    return { id, kind: 'problem', message: `the answer has no "${collection}" array` };
  const records: SourceRecord[] = [];
  const roles: SourceRecord[] = [];
  for (const [i, value] of objects.entries()) {
    // A record that is not an object maps to empty columns: the mapping names it as a row error.
    const object = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
    records.push(flatten(collection, object, firstPosition + i));
    if (collection === 'users') roles.push(...rolesOf(object, firstPosition + i));
  }
  return { id, kind: 'page', count: objects.length, json: JSON.stringify({ records, roles }), threadId };
}

port.on('message', (request: PageRequest) => {
  port.postMessage(parse(request));
});
