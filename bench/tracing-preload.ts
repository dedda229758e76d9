// Starts OpenTelemetry before a benchmark's modules load, as bin/serve.js does for the server:
// `node --import ./bench/tracing-preload.ts bench/run.ts roster` with OTEL_EXPORTER_OTLP_ENDPOINT
// set (bench/otlp-sink.ts is a receiver that takes and drops spans). docs/performance.md has the
// figures with tracing on and off.
import { tracingWanted } from '../src/config.ts';
import { startTracing } from '../src/lib/telemetry/tracing.ts';

if (tracingWanted()) await startTracing('ssp-bench');
