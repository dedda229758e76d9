// The tests' OneRoster 1.2 REST provider: the development provider (src/dev-oneroster) over
// real HTTP on loopback, with generated data, and a helper that configures an institution's
// OneRoster source to pull from it.

import { after } from 'node:test';
import { generateRoster, type Json, type ProviderData } from '../../src/dev-oneroster/data.ts';
import { type OneRosterProvider, startOneRosterProvider } from '../../src/dev-oneroster/provider.ts';
import type { TestContext } from './app.ts';

export { generateRoster, type Json, type OneRosterProvider, type ProviderData, startOneRosterProvider };

/**
 * Starts providers for the tests of a file or suite, each closed after them (the `after` hook
 * is registered where this is called).
 */
export function providerPool(): (
  options: Parameters<typeof startOneRosterProvider>[0],
) => Promise<OneRosterProvider> {
  const started: OneRosterProvider[] = [];
  after(async () => {
    for (const p of started) await p.close();
  });
  return async (options) => {
    const provider = await startOneRosterProvider(options);
    started.push(provider);
    return provider;
  };
}

/** PUT the institution's OneRoster source at `provider`; returns the response. */
export function configureSource(
  ctx: TestContext,
  slug: string,
  provider: OneRosterProvider,
  body: Record<string, unknown>,
) {
  return ctx.admin('PUT', `/admin/v1/institutions/${slug}/oneroster-source`, {
    base_url: provider.baseUrl,
    token_url: provider.tokenUrl,
    client_id: provider.clientId,
    client_secret: provider.clientSecret,
    ...body,
  });
}

/** Marks a record changed now (dateLastModified), as a SIS does when it edits one. */
export function touch(record: Json, changes: Json, at = new Date()): void {
  Object.assign(record, changes, { dateLastModified: at.toISOString() });
}
