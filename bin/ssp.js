#!/usr/bin/env node
// The ssp command. It needs Node.js 24 (it runs the TypeScript sources directly); `npx ssp`
// and npm scripts put the project's pinned Node first on PATH.
import module from 'node:module';
import { applyNodeSettings, commandOf, PUSH_ENVIRONMENT, PUSH_V8_FLAGS } from './node-settings.js';

const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`ssp needs Node.js 24 or later (this is ${process.version}); run it as "npx ssp".\n`);
  process.exit(1);
}
// The long-running commands run with the server's memory settings (node-settings.js), pushes
// too: a OneRoster push holds maps of every student and enrollment, and without a full
// collection each time the heap grows by half V8 let it reach some 80 MB (docs/ssp-push.md,
// memory model). The short ones (admin commands) are not worth a restart.
const command = commandOf(process.argv.slice(2));
if (command === 'push') applyNodeSettings(PUSH_ENVIRONMENT, PUSH_V8_FLAGS);
else if (['serve', 'worker'].includes(command)) applyNodeSettings();

// Node's compile cache keeps the sources' compiled code, the TypeScript already stripped of its
// types, between runs (in $NODE_COMPILE_CACHE, else the system's temporary folder): a run
// after the first neither strips types again nor loads the stripper, about 30 MB less memory
// and a faster start. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();
// The server and the worker trace when the OTEL_* variables ask for it: OpenTelemetry starts
// before their modules load (src/lib/telemetry/tracing.ts). Other commands never load it.
if (['serve', 'worker'].includes(process.argv[2] ?? '')) {
  const { tracingWanted } = await import('../src/config.ts');
  if (tracingWanted()) await (await import('../src/lib/telemetry/tracing.ts')).startTracing();
}
const { run } = await import('../src/cli/main.ts');
await run();
