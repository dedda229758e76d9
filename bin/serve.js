#!/usr/bin/env node
// `npm start`: the server (src/main.ts) with Node's compile cache on, as `ssp` has it: a start
// after the first neither strips the sources' types again nor loads the stripper (about 30 MB
// less memory, a faster start). The V8 flags and the C library's malloc setting that keep the
// embedded default lean are applied first (node-settings.js: the process restarts itself in
// place with them), however it was started; docs/performance.md says what each one buys.
import module from 'node:module';
import { applyNodeSettings } from './node-settings.js';

applyNodeSettings();
module.enableCompileCache?.();
// OpenTelemetry, when the OTEL_* variables ask for it, starts before the server's modules load.
const { tracingWanted } = await import('../src/config.ts');
if (tracingWanted()) await (await import('../src/lib/telemetry/tracing.ts')).startTracing();
const { serve } = await import('../src/main.ts');
await serve();
