// `node --test --test-global-setup=test/browser/global-setup.ts` (npm run test:browser; npm test
// runs it from test/global-setup.ts): one Chromium for every browser test file of the run, which connect to it (chromium.ts). With
// no Chromium installed it does nothing, and the browser suites say they are skipped.
import { existsSync } from 'node:fs';
import { type BrowserServer, chromium } from 'playwright-core';
import { CHROMIUM, LAUNCH_ARGS, SHARED_CHROMIUM } from './chromium.ts';

let server: BrowserServer | undefined;

export async function globalSetup(): Promise<void> {
  if (!existsSync(CHROMIUM) || process.env[SHARED_CHROMIUM]) return;
  server = await chromium.launchServer({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  process.env[SHARED_CHROMIUM] = server.wsEndpoint();
}

export async function globalTeardown(): Promise<void> {
  await server?.close();
}
