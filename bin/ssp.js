#!/usr/bin/env node
// The ssp command. It needs Node.js 24 (it runs the TypeScript sources directly); `npx ssp`
// and npm scripts put the project's pinned Node first on PATH.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`ssp needs Node.js 24 or later (this is ${process.version}); run it as "npx ssp".\n`);
  process.exit(1);
}
const { run } = await import('../src/cli/main.ts');
await run();
