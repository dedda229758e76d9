// The log of a process without the HTTP application (`ssp worker`, the workers' thread of
// `ssp serve`): JSON lines on stdout, like the server's, with the trace and span of the job a
// line was written in when tracing is on.
import { hostname } from 'node:os';
import { tracing } from './telemetry/tracing.ts';

/** What the server's log redacts (src/app/app.ts): a secret or token field, or one a level down. */
const secretKeys = new Set(['secret', 'token']);
function redacted(key: string, value: unknown): unknown {
  if (secretKeys.has(key)) return '[redacted]';
  // Only a plain object's fields: a Date, an array or a class's instance is written as it is.
  if (!value || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, secretKeys.has(k) ? '[redacted]' : v]);
  return Object.fromEntries(entries);
}

/** JSON lines on stdout, like the server's logs (errors always; info unless the level is above it). */
export function jsonLogger(level: string) {
  const host = hostname();
  const quiet = ['warn', 'error', 'fatal', 'silent'].includes(level);
  const line = (lvl: number, obj: object, msg?: string) => {
    const fields = Object.fromEntries(
      Object.entries(obj).map(([k, v]) => [
        k,
        v instanceof Error ? { message: v.message, stack: v.stack } : redacted(k, v),
      ]),
    );
    // With tracing on, a line written inside a job carries its trace and span.
    const trace = tracing()?.traceFields();
    const head = { level: lvl, time: Date.now(), pid: process.pid, hostname: host, msg };
    process.stdout.write(`${JSON.stringify({ ...head, ...trace, ...fields })}\n`);
  };
  return {
    info: (obj: object, msg?: string) => {
      if (!quiet) line(30, obj, msg);
    },
    warn: (obj: object, msg?: string) => {
      if (!['error', 'fatal', 'silent'].includes(level)) line(40, obj, msg);
    },
    error: (obj: object, msg?: string) => {
      if (level !== 'silent') line(50, obj, msg);
    },
  };
}
