// Signing in at the service through a real provider (helpers/idp.ts) over real HTTP: the
// provider set up for an institution, and a browser's whole round trip from the service's
// sign-in start to its callback.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { type SeededTenant, seedTenant, type TestContext } from './app.ts';
import { type DevIdp, type DevPerson, signInThroughProvider, startTestIdp, TEST_CLIENT } from './idp.ts';

/** The service's public address in the sign-in tests: the provider redirects back to it. */
export const SIGN_IN_PUBLIC = 'http://127.0.0.1:3000';

/** Settings that let the service reach a provider on 127.0.0.1 and name its own callback. */
export const SIGN_IN_CONFIG = { allowLoopbackOutbound: true, publicBaseUrl: SIGN_IN_PUBLIC };

/** A provider whose test client redirects to the service's callback; `people` replace TEST_PEOPLE. */
export function startServiceIdp(people?: DevPerson[]): Promise<DevIdp> {
  return startTestIdp({
    clients: [{ ...TEST_CLIENT, redirect_uris: [`${SIGN_IN_PUBLIC}/auth/callback`] }],
    ...(people ? { people } : {}),
  });
}

/** A new institution signing in at `provider`; `domains` are sent as its email domains when given. */
export async function tenantWithProvider(
  ctx: TestContext,
  provider: DevIdp,
  domains?: string[],
): Promise<SeededTenant> {
  const tenant = await seedTenant(ctx);
  const put = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/identity-provider`, {
    issuer: provider.issuer,
    client_id: TEST_CLIENT.client_id,
    client_secret: TEST_CLIENT.client_secret,
    ...(domains ? { email_domains: domains } : {}),
  });
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(put.json().client_secret, undefined);
  return tenant;
}

export interface SignInOutcome {
  /** The service's answer to the callback. */
  callback: LightMyRequestResponse;
  session?: string;
}

/**
 * A browser's whole sign-in: start at the service (PKCE and a nonce asked of the provider),
 * choose `sub` at the provider, come back. `tamper` changes the callback or the flow cookie.
 */
export async function signInAtService(
  ctx: TestContext,
  start: string,
  sub: string,
  tamper?: (callback: URL, flowCookie: string) => { callback: URL; flowCookie: string },
): Promise<SignInOutcome> {
  const begin = await ctx.request({ method: 'GET', url: start });
  assert.equal(begin.statusCode, 302, begin.body);
  const flowCookie = begin.cookies.find((c) => c.name === 'ssp_signin')!.value;
  const location = new URL(begin.headers.location as string);
  assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(location.searchParams.get('nonce'));
  let callback = await signInThroughProvider(location, sub);
  let cookie = flowCookie;
  if (tamper) ({ callback, flowCookie: cookie } = tamper(callback, flowCookie));
  const done = await ctx.request({
    method: 'GET',
    url: `${callback.pathname}${callback.search}`,
    headers: { cookie: `ssp_signin=${cookie}` },
  });
  const session = done.cookies.find((c) => c.name === 'ssp_session' && c.value)?.value;
  return { callback: done, session };
}
