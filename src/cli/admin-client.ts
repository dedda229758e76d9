// The CLI's client for the admin HTTP API: every write goes through the same path as the console.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXIT, type ExitCode, exitForStatus } from './exit-codes.ts';

export interface AdminClientOptions {
  url: string;
  token: string | undefined;
}

/** A failure the command explains in one line; `exitCode` says which kind (exit-codes.ts). */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode = EXIT.refused) {
    super(message);
    this.exitCode = exitCode;
  }
}

export function createAdminClient(options: AdminClientOptions) {
  /**
   * One admin API call; the parsed JSON body, or with `to`, the body streamed there as it
   * arrives (CSV exports) and undefined returned.
   */
  return async function call(
    method: string,
    path: string,
    body?: unknown,
    output: { to?: NodeJS.WritableStream; headers?: Record<string, string> } = {},
  ): Promise<unknown> {
    if (!options.token)
      throw new CliError('no operator token: pass --token or set SSP_OPERATOR_TOKEN', EXIT.auth);
    let response: Response;
    try {
      response = await fetch(new URL(path, options.url), {
        method,
        headers: {
          ...output.headers,
          authorization: `Bearer ${options.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new CliError(`cannot reach ${options.url}: ${(error as Error).message}`, EXIT.network);
    }
    if (response.ok && output.to && response.body) {
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), output.to, {
        end: false,
      });
      return undefined;
    }
    const text = await response.text();
    const parsed = text ? safeJson(text) : null;
    if (!response.ok) {
      const code = (parsed as { error?: string } | null)?.error ?? `http_${response.status}`;
      const detail = (parsed as { detail?: string } | null)?.detail;
      throw new CliError(
        `${response.status} ${code}${detail ? `: ${detail}` : ''}`,
        exitForStatus(response.status),
      );
    }
    return parsed;
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export type AdminCall = ReturnType<typeof createAdminClient>;

/** How a command prints what the API answered (src/cli/output.ts). */
export type Print = (v: unknown) => void;
