// Browser tests of the console: the service listening on a real port, Debian's Chromium driven
// by playwright-core (under npm test one Chromium serves the whole run: chromium.ts), axe-core
// run on every page, a screenshot of every page saved under test-artifacts/screenshots/. Without
// Chromium's headless shell or Chromium (chromium.ts) the suites are skipped and say so
// (`apt-get install -y chromium-headless-shell`; .ci/run installs it).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Config } from '../../src/config.ts';
import type { Permission, Role } from '../../src/domain/access/policy.ts';
import { startSession } from '../../src/domain/people/sessions.ts';
import { type SeededTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { freePort } from '../helpers/free-port.ts';
import { invitePerson } from '../helpers/people.ts';
import { CHROMIUM, openBrowser } from './chromium.ts';

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');

export interface Harness {
  ctx: TestContext;
  /** http://127.0.0.1:<port> */
  base: string;
  browser: Browser;
  /** A fresh browser (context and page) holding a session for this party, or none. */
  open(session?: { token: string }): Promise<{ context: BrowserContext; page: Page }>;
  /** A session of a new person of the tenant with these grants. */
  person(
    tenant: SeededTenant,
    grants: { roles: Role[]; permissions?: Permission[]; name?: string },
  ): Promise<{ token: string; personId: string; name: string }>;
  operator(): Promise<{ token: string }>;
  /** Runs axe-core (no serious or critical violation) and saves a full-page screenshot. */
  check(page: Page, name: string): Promise<void>;
  /**
   * Opens a fresh browser for this party, runs the steps, then checks the page as `shot` (when
   * given) and closes the browser whatever happened.
   */
  withPage(
    session: { token: string } | undefined,
    steps: (page: Page, context: BrowserContext) => Promise<void>,
    shot?: string,
  ): Promise<void>;
}

let counter = 0;

/**
 * A suite with the service listening and a browser; skipped (and said so) without Chromium.
 * `config` adds settings read when the suite starts (a mail server started by the test file, say).
 */
export function browserSuite(
  name: string,
  suite: (harness: () => Harness) => void,
  config: () => Partial<Config> = () => ({}),
): void {
  if (!existsSync(CHROMIUM)) {
    console.log(`browser tests skipped: no Chromium at ${CHROMIUM}`);
    test(`${name}: browser tests skipped`, { skip: `no Chromium at ${CHROMIUM}` }, () => {});
    return;
  }
  // One database kind keeps the browser suites fast: PostgreSQL when configured, else PGlite.
  const kind = databaseKinds().at(-1) ?? 'pglite';
  describe(`${name} [${kind}]`, () => {
    let harness: Harness | undefined;
    before(async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const ctx = await startTestApp(kind, {
        config: { publicBaseUrl: base, allowLoopbackOutbound: true, ...config() },
      });
      await ctx.app.listen({ port, host: '127.0.0.1' });
      const browser = await openBrowser();
      mkdirSync(SCREENSHOTS, { recursive: true });
      harness = {
        ctx,
        base,
        browser,
        async open(session) {
          const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
          if (session) {
            await context.addCookies([
              { name: 'ssp_session', value: session.token, url: base, httpOnly: true, sameSite: 'Lax' },
            ]);
          }
          return { context, page: await context.newPage() };
        },
        async person(tenant, grants) {
          const name = grants.name ?? `Person ${++counter}`;
          const person = await invitePerson(ctx, tenant, { ...grants, name });
          const session = await startSession(ctx.deps, {
            kind: 'person',
            personId: person.id,
            institutionId: tenant.institutionId,
          });
          return { token: session.token, personId: person.id, name };
        },
        async operator() {
          return startSession(ctx.deps, { kind: 'operator' });
        },
        async check(page, shot) {
          const results = await new AxeBuilder({ page }).analyze();
          const violations = results.violations as {
            id: string;
            impact?: string | null;
            help: string;
            nodes: { target: unknown[] }[];
          }[];
          const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
          assert.deepEqual(
            serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
            [],
            `accessibility of ${page.url()}`,
          );
          await page.screenshot({ path: path.join(SCREENSHOTS, `${shot}.png`), fullPage: true });
        },
        async withPage(session, steps, shot) {
          const { context, page } = await this.open(session);
          try {
            await steps(page, context);
            if (shot !== undefined) await this.check(page, shot);
          } finally {
            await context.close();
          }
        },
      };
    });
    after(async () => {
      await harness?.browser.close();
      await harness?.ctx.close();
    });
    suite(() => {
      if (!harness) throw new Error('the browser harness is not ready');
      return harness;
    });
  });
}
