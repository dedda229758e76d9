// A real OpenID provider for tests (src/dev-idp) on 127.0.0.1, and a person signing in at it over
// real HTTP: no browser, no stubbed token. The service's outbound policy must allow loopback
// (ALLOW_LOOPBACK_OUTBOUND) to reach it.
import {
  type DevClient,
  type DevIdp,
  type DevIdpOptions,
  type DevPerson,
  startDevIdp,
} from '../../src/dev-idp/dev-idp.ts';

export type { DevClient, DevIdp, DevPerson };

export const TEST_CLIENT: DevClient = {
  client_id: 'ssp-test',
  client_secret: 'ssp-test-secret-0123456789abcdef',
  redirect_uris: ['http://127.0.0.1:3000/auth/callback'],
};

export const TEST_PEOPLE: DevPerson[] = [
  { sub: 'sub-admin', email: 'admin@example.edu', email_verified: true, name: 'Alex Admin' },
  { sub: 'sub-staff', email: 'staff@example.edu', email_verified: true, name: 'Sam Staff' },
  { sub: 'sub-ana', email: 'ana.lima@student.example.edu', email_verified: true, name: 'Ana Lima' },
  {
    sub: 'sub-unverified',
    email: 'ben.okafor@student.example.edu',
    email_verified: false,
    name: 'Ben Okafor',
  },
];

/** Starts a provider on 127.0.0.1, port 0; people and clients default to TEST_PEOPLE and TEST_CLIENT. */
export function startTestIdp(options: Partial<DevIdpOptions> = {}): Promise<DevIdp> {
  return startDevIdp({
    host: '127.0.0.1',
    port: 0,
    people: TEST_PEOPLE,
    clients: [TEST_CLIENT],
    ...options,
  });
}

export interface SignInOptions {
  /** Press the provider's cancel button instead of choosing a person. */
  cancel?: boolean;
  /** Headers sent on every request to the provider (none by default). */
  headers?: Record<string, string>;
}

/**
 * Walks the provider's pages for an authorization URL the service produced: follows redirects
 * by hand, keeps the provider's cookies, posts the person chosen (or cancel), and returns the URL
 * the provider redirects the browser back to (the client's redirect URI with code or error).
 */
export async function signInThroughProvider(
  authorizationUrl: string | URL,
  personSub: string,
  options: SignInOptions = {},
): Promise<URL> {
  const start = new URL(authorizationUrl);
  const redirectUri = start.searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('the authorization URL has no redirect_uri');
  const cookies = new Map<string, string>();
  let url = start;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step += 1) {
    const cookieHeader = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        ...options.headers,
        ...(cookieHeader ? { cookie: cookieHeader } : {}),
        ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (`${next.origin}${next.pathname}` === redirectUri.replace(/\?.*$/, '')) return next;
      url = next;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(`the provider answered ${response.status}: ${html.slice(0, 300)}`);
    const formId = options.cancel ? 'abort' : 'login';
    const form = new RegExp(`<form method="post" action="([^"]+)" id="${formId}">`).exec(html);
    if (!form) throw new Error(`the provider's page has no ${formId} form: ${html.slice(0, 300)}`);
    url = new URL(form[1].replaceAll('&amp;', '&'), url);
    method = 'POST';
    body = options.cancel ? '' : new URLSearchParams({ sub: personSub }).toString();
  }
  throw new Error('the provider did not redirect back within 20 steps');
}
