// The console's client of the admin API. Every write, and most reads, go through the admin API
// in-process (`inject`) carrying the person's own cookie and CSRF token: the API authorises,
// validates and audits exactly as for any other client, and the console only renders answers.
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode } from '../../../errors.ts';
import { uuidPattern } from '../../../lib/ids.ts';
import type { App } from '../../types.ts';

/** The API's flat error body. */
export interface ApiProblem {
  error: string;
  detail?: string;
  field?: string;
  [key: string]: unknown;
}

export type ApiAnswer<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; problem: ApiProblem };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ConsoleApi {
  call<T = Record<string, unknown>>(method: Method, url: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** A read that must succeed: any refusal becomes the page's own error (404, 403, ...). */
  get<T = Record<string, unknown>>(url: string): Promise<T>;
  /** A read whose refusal the page renders itself (a panel the role may not see). */
  tryGet<T = Record<string, unknown>>(url: string): Promise<T | undefined>;
  /**
   * A read passed on as the API writes it (a CSV export of a whole institution): the body is
   * never held in memory, and the API's backpressure reaches the person's connection. A refusal
   * becomes the page's own error, as with `get`.
   */
  stream(url: string): Promise<{ headers: Record<string, unknown>; body: Readable }>;
}

/** Thrown by `get` when the API refuses a read; the console's error handler renders it. */
export class ApiRefusal extends ApiError {
  readonly problem: ApiProblem;
  constructor(status: number, problem: ApiProblem) {
    const { error, ...extra } = problem;
    super(error as ErrorCode, extra, status);
    this.problem = problem;
  }
}

/** The CSRF token a form post carried (already checked by the console scope). */
function postedToken(request: FastifyRequest): string | undefined {
  const body = request.body as { _csrf?: unknown } | undefined;
  if (typeof body?._csrf === 'string') return body._csrf;
  const header = request.headers['x-csrf-token'];
  return typeof header === 'string' ? header : undefined;
}

export function consoleApi(app: App, request: FastifyRequest): ConsoleApi {
  const call = async <T>(method: Method, url: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const token = method === 'GET' ? undefined : postedToken(request);
    const response = await app.inject({
      method,
      url,
      headers: {
        ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}),
        ...(token ? { 'x-csrf-token': token } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        'x-request-id': request.id,
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = response.body ? safeJson(response.body) : null;
    if (response.statusCode >= 400) {
      const problem =
        parsed && typeof parsed === 'object' && 'error' in parsed
          ? (parsed as ApiProblem)
          : { error: 'internal_error', detail: 'the request could not be completed' };
      return { ok: false, status: response.statusCode, problem };
    }
    return { ok: true, status: response.statusCode, body: parsed as T };
  };
  return {
    call,
    async stream(url: string) {
      const response = await app.inject({
        method: 'GET',
        url,
        headers: {
          ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}),
          'x-request-id': request.id,
        },
        payloadAsStream: true,
      });
      const body = response.stream();
      // A download the person abandons ends the API's side too, so it stops reading batches.
      body.once('close', () => response.raw.res.destroy());
      if (response.statusCode < 400) return { headers: response.headers, body };
      // A refusal is a short JSON body: read it whole to show the API's code and detail.
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      const parsed = safeJson(Buffer.concat(chunks).toString('utf8'));
      const problem =
        parsed && typeof parsed === 'object' && 'error' in parsed
          ? (parsed as ApiProblem)
          : { error: 'internal_error', detail: 'the request could not be completed' };
      throw new ApiRefusal(response.statusCode, problem);
    },
    async get<T>(url: string) {
      const answer = await call<T>('GET', url);
      if (!answer.ok) throw new ApiRefusal(answer.status, answer.problem);
      return answer.body;
    },
    async tryGet<T>(url: string) {
      const answer = await call<T>('GET', url);
      if (answer.ok) return answer.body;
      if (answer.status === 403) return undefined;
      throw new ApiRefusal(answer.status, answer.problem);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Builds a query string from the defined, non-empty values. */
export function query(values: Record<string, string | number | boolean | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * A resource id from a console URL. The API answers a malformed id with a 400; to a person it is
 * a page that does not exist, so it is the not-found page with the code the API would give.
 */
export function pageId(id: string, notFound: { error: string; detail: string }): string {
  if (!uuidPattern.test(id)) throw new ApiRefusal(404, notFound);
  return id;
}
