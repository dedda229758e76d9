// OpenTelemetry traces, exported over OTLP when the standard OTEL_* variables ask for it
// (tracingWanted in src/config.ts). Off, nothing of the SDK is loaded: startTracing() is never
// called, jobs run without a span (./jobs.ts) and log lines carry no trace fields.
//
// On, it must start before the modules it instruments are loaded, so the process entries
// (bin/serve.js, bin/ssp.js for `serve` and `worker`) call it first and import the server
// after. It instruments inbound HTTP (node:http and Fastify's routes and hooks), PostgreSQL
// (pg and its pool), and outbound HTTP through undici (webhook deliveries, calendar fetches,
// OneRoster pulls, OpenID Connect); each worker job is a span of its own. The exporter, its
// endpoint, protocol, headers, sampler and service name are the SDK's own OTEL_* settings.
import { register } from 'node:module';

export interface ActiveTracing {
  /** The trace and span of the code running now, for log lines. */
  traceFields(): { trace_id: string; span_id: string } | undefined;
  /** Runs `fn` in a new span; the span ends with it, marked as an error when it throws. */
  inSpan<T>(name: string, attributes: Record<string, string | number>, fn: () => Promise<T>): Promise<T>;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

let active: ActiveTracing | undefined;

/** The running tracing, or undefined when it is off. */
export function tracing(): ActiveTracing | undefined {
  return active;
}

/** Starts the SDK (once). Call before the server's modules are imported. */
export async function startTracing(serviceName = 'ssp'): Promise<ActiveTracing> {
  if (active) return active;
  // ES modules (the service's own, and packages it imports) are instrumented through this hook.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  process.env.OTEL_SERVICE_NAME ||= serviceName;
  // Traces only: metrics are Prometheus' (GET /metrics) and logs go to stdout.
  process.env.OTEL_METRICS_EXPORTER ||= 'none';
  process.env.OTEL_LOGS_EXPORTER ||= 'none';
  const [api, { NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }, { UndiciInstrumentation }, otel] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-undici'),
      import('@fastify/otel'),
    ]);
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would drown the traces that matter.
        ignoreIncomingRequestHook: (request) => /^\/(health\/|metrics\b)/.test(request.url ?? ''),
      }),
      new otel.FastifyOtelInstrumentation({ registerOnInitialization: true }),
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  const tracer = api.trace.getTracer('ssp');
  active = {
    traceFields() {
      const context = api.trace.getActiveSpan()?.spanContext();
      return context && api.isSpanContextValid(context)
        ? { trace_id: context.traceId, span_id: context.spanId }
        : undefined;
    },
    inSpan(name, attributes, fn) {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await fn();
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    shutdown: () => sdk.shutdown(),
  };
  return active;
}

/** Flushes and stops tracing when it runs (a no-op otherwise). */
export async function stopTracing(): Promise<void> {
  const running = active;
  active = undefined;
  await running?.shutdown().catch(() => {});
}
