// The log of a process without the HTTP application (`ssp worker`, the workers' thread of
// `ssp serve`): JSON lines on stdout, like the server's, with the trace and span of the job a
// line was written in when tracing is on.
import { tracing } from './telemetry/tracing.ts';

/** JSON lines on stdout, like the server's logs (errors always; info unless the level is above it). */
export function jsonLogger(level: string) {
  const quiet = ['warn', 'error', 'fatal', 'silent'].includes(level);
  const line = (lvl: number, obj: object, msg?: string) => {
    const fields = Object.fromEntries(
      Object.entries(obj).map(([k, v]) => [
        k,
        v instanceof Error ? { message: v.message, stack: v.stack } : v,
      ]),
    );
    // With tracing on, a line written inside a job carries its trace and span.
    const trace = tracing()?.traceFields();
    process.stdout.write(`${JSON.stringify({ level: lvl, time: Date.now(), msg, ...trace, ...fields })}\n`);
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
