// Debian's Chromium for the browser tests. `npm test` starts one Chromium for the whole run
// (test/browser/global-setup.ts, its address in SSP_TEST_CHROMIUM) and every browser test file
// connects to it, each with browser contexts of its own, instead of starting one per file; a
// file run on its own (`node --test test/browser/x.test.ts`) starts its own.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Download } from 'playwright-core';

/**
 * Debian's headless shell (`apt-get install -y chromium-headless-shell`) when installed, else
 * Debian's Chromium. The same Blink renders the pages; the shell leaves out the browser around
 * them, which Chromium's own headless mode now runs whole: a new context, a page and a screenshot
 * took 2-2.5 times as long in Chromium 156 (docs/development.md).
 */
export const CHROMIUM =
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ??
  '/usr/bin/chromium';
export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];
/** The environment variable holding the shared Chromium's WebSocket address. */
export const SHARED_CHROMIUM = 'SSP_TEST_CHROMIUM';

/** The run's shared Chromium when there is one, else a Chromium of this file's own. */
export async function openBrowser(): Promise<Browser> {
  const shared = process.env[SHARED_CHROMIUM];
  if (shared) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}

/** A download's content as text, read through Playwright (a shared Chromium's files are not local). */
export async function downloadText(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
