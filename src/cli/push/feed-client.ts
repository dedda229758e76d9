// The push client of the two feed endpoints (POST /api/sis/sync and /api/sis/enrolments),
// authenticated by the institution's roster secret, not the operator token of admin-client.ts.
// Every page is an idempotent upsert, so a page whose answer was lost may be sent again:
// 429 waits the server's Retry-After; 5xx and network errors retry with exponential backoff
// and full jitter; any other 4xx stops the push (retrying cannot fix it).
//
// Node's own HTTP client with one keep-alive connection, not undici or fetch: undici adds about
// 30 MB to the process (its modules and its WebAssembly HTTP parser), and fetch left the RSS
// growing page after page with 1 MB bodies (about 220 MB after 100 pages, measured). The page's
// buffers are sent as they are, without copying them.
import type http from 'node:http';
import https from 'node:https';

export interface FeedClientOptions {
  url: string;
  secret: string;
  /** Attempts per page, the first included. */
  attempts?: number;
  /** Backoff base and cap for 5xx and network errors, in milliseconds. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Told before each wait, for the progress output. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class FeedRequestError extends Error {
  readonly status: number | undefined;
  readonly code: string | undefined;
  constructor(message: string, status?: number, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * A page's request body: JSON text, or its parts as bytes (sent one after the other, never
 * joined: a page's rows stay in the buffer they were written to).
 */
export type FeedBody = string | readonly Uint8Array[];

export type FeedPost = (path: string, body: FeedBody) => Promise<Record<string, unknown>>;

const sleeper = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** No answer (or no byte of it) for this long is a network error, as undici's default was. */
const IDLE_TIMEOUT_MS = 300_000;

export function createFeedClient(options: FeedClientOptions): FeedPost {
  const attempts = options.attempts ?? 6;
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? sleeper;
  const random = options.random ?? Math.random;
  let transport: Promise<Transport> | undefined;
  return async function post(path, body) {
    transport ??= transportFor(options.url);
    const parts = typeof body === 'string' ? [Buffer.from(body)] : body;
    let failure = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let response: Answer;
      try {
        response = await send(await transport, new URL(path, options.url), options.secret, parts);
      } catch (error) {
        // No connection, or it broke while the answer arrived (the page may have applied):
        // sending it again is safe because pages are upserts.
        failure =
          error instanceof AnswerCutOff
            ? `the answer from ${options.url} was cut off: ${describe(error.cause)}`
            : `cannot reach ${options.url}: ${describe(error)}`;
        if (attempt === attempts) break;
        const delayMs = backoff(attempt, base, cap, random);
        options.onRetry?.({ attempt, delayMs, reason: failure });
        await sleep(delayMs);
        continue;
      }
      const parsed = parseJson(response.text);
      if (response.statusCode >= 200 && response.statusCode < 300) {
        if (!parsed || typeof parsed !== 'object') {
          throw new FeedRequestError(`${path}: the service answered 200 without a JSON object`, 200);
        }
        return parsed as Record<string, unknown>;
      }
      const code = (parsed as { error?: unknown } | undefined)?.error;
      const detail = (parsed as { detail?: unknown } | undefined)?.detail;
      const codeText = typeof code === 'string' ? code : `http_${response.statusCode}`;
      failure = `${path}: ${response.statusCode} ${codeText}${typeof detail === 'string' ? `: ${detail}` : ''}`;
      if (response.statusCode === 429) {
        if (attempt === attempts) break;
        const header = response.headers['retry-after'];
        const delayMs =
          retryAfterMs(Array.isArray(header) ? header[0] : (header ?? null)) ??
          backoff(attempt, base, cap, random);
        options.onRetry?.({ attempt, delayMs, reason: `rate limited (${response.statusCode})` });
        await sleep(delayMs);
        continue;
      }
      if (response.statusCode >= 500) {
        if (attempt === attempts) break;
        const delayMs = backoff(attempt, base, cap, random);
        options.onRetry?.({ attempt, delayMs, reason: failure });
        await sleep(delayMs);
        continue;
      }
      throw new FeedRequestError(failure, response.statusCode, typeof code === 'string' ? code : undefined);
    }
    throw new FeedRequestError(`${failure} (gave up after ${attempts} attempts)`);
  };
}

interface Answer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** The request was sent and its answer began, but the connection broke before the end. */
class AnswerCutOff extends Error {}

interface Transport {
  agent: http.Agent;
  request: typeof https.request;
}

/**
 * Up to two connections, kept alive, to the service: pages go one at a time, and a OneRoster
 * push asks what its next batch of enrollments placed while a page is in flight (with one
 * connection the question waited behind the page, and the reading behind both). For an http: URL this is the plain agent that
 * https.Agent extends, given to https.request, which then speaks plain HTTP: importing node:http
 * instead would load, in Node 24, the runtime's bundled undici with http2, zlib and worker
 * modules (16 MB more, measured), none of which a push uses. Should a later Node not offer that
 * agent, node:http is loaded after all.
 */
async function transportFor(url: string): Promise<Transport> {
  const options = { keepAlive: true, maxSockets: 2 };
  if (url.startsWith('https:')) return { agent: new https.Agent(options), request: https.request };
  const PlainAgent: unknown = Object.getPrototypeOf(https.Agent);
  if (typeof PlainAgent === 'function') {
    const agent = new (PlainAgent as typeof http.Agent)(options);
    if ((agent as { protocol?: string }).protocol === 'http:') return { agent, request: https.request };
  }
  const nodeHttp = await import('node:http');
  return { agent: new nodeHttp.Agent(options), request: nodeHttp.request };
}

/** One POST: resolves with the whole answer, rejects on any network error. */
function send(
  { agent, request: open }: Transport,
  url: URL,
  secret: string,
  parts: readonly Uint8Array[],
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
    const request = open(url, {
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'content-length': length,
      },
    });
    request.setTimeout(IDLE_TIMEOUT_MS, () => request.destroy(new Error('no answer (timed out)')));
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => reject(new AnswerCutOff('cut off', { cause: error })));
      response.on('close', () => {
        if (!response.complete) {
          reject(new AnswerCutOff('cut off', { cause: new Error('the connection closed') }));
          return;
        }
        resolve({
          statusCode: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    for (const part of parts) request.write(part);
    request.end();
  });
}

/** Full jitter: a random wait between 0 and min(cap, base * 2^(attempt-1)). */
export function backoff(attempt: number, base: number, cap: number, random: () => number): number {
  return Math.round(random() * Math.min(cap, base * 2 ** (attempt - 1)));
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e?.code ?? e?.message ?? String(error);
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
