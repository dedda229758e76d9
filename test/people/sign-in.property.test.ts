// No input to the sign-in pages, the callback or the one-time link yields a 5xx, and none of
// them ever sets a session cookie.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ maxLength: 300 }),
  fc.constantFrom('', '%', '%00', '../', '\u0000', '<script>'),
);
const enc = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ZZ';
  }
};

describeEachDatabase('sign-in routes under arbitrary input', (ctx) => {
  test('callback, sign-in start, search and operator link: never a 5xx, never a session', async () => {
    const tenant = await seedTenant(ctx());
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          code: text,
          state: text,
          error: text,
          iss: text,
          extra: text,
          cookie: text,
          slug: text,
          token: text,
        }),
        fc.constantFrom('callback', 'start', 'search', 'link-get', 'link-post', 'sign-out'),
        async (input, route) => {
          const query = `code=${enc(input.code)}&state=${enc(input.state)}&error=${enc(input.error)}&iss=${enc(input.iss)}&x=${enc(input.extra)}`;
          const url = {
            callback: `/auth/callback?${query}`,
            start: `/auth/${enc(input.slug) || tenant.slug}/sign-in?return_to=${enc(input.extra)}`,
            search: `/auth/sign-in?q=${enc(input.extra)}`,
            'link-get': `/auth/operator-link/${enc(input.token) || 'x'}`,
            'link-post': `/auth/operator-link/${enc(input.token) || 'x'}`,
            'sign-out': '/auth/sign-out',
          }[route];
          const method = route === 'link-post' || route === 'sign-out' ? 'POST' : 'GET';
          const cookieValue = input.cookie.replace(/[^\x21-\x7e]/g, '').replace(/[;,]/g, '');
          const res = await ctx().app.inject({
            method,
            url,
            headers: {
              cookie: `ssp_signin=${cookieValue}; ssp_session=${cookieValue}`,
              ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
            },
            payload: method === 'POST' ? `_csrf=${enc(input.extra)}` : undefined,
          });
          assert.ok(res.statusCode < 500, `${method} ${url} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
          const session = res.cookies.find((c) => c.name === 'ssp_session' && c.value);
          assert.equal(session, undefined, `${method} ${url} set a session`);
        },
      ),
      { numRuns: 150 },
    );
  });
});
