// Sign-in end to end over real HTTP: the service sends the browser to a real OpenID provider
// (src/dev-idp, on oidc-provider) started by the test, a person signs in there, and the
// provider's redirect comes back to /auth/callback. Then: who the session is, and every way a
// sign-in must fail (each a page with a code, never a session).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { type DevIdp, signInThroughProvider, TEST_CLIENT, TEST_PEOPLE } from '../helpers/idp.ts';
import { invitePerson } from '../helpers/people.ts';
import { pushRoster } from '../helpers/roster.ts';
import {
  SIGN_IN_CONFIG,
  type SignInOutcome,
  signInAtService,
  startServiceIdp,
  tenantWithProvider as tenantWithIdp,
} from '../helpers/sign-in.ts';

type Outcome = SignInOutcome;

const signIn = signInAtService;

async function whoAmI(ctx: TestContext, session: string | undefined) {
  assert.ok(session, 'a session cookie was set');
  const me = await ctx.request({
    method: 'GET',
    url: '/admin/v1/me',
    headers: { cookie: `ssp_session=${session}` },
  });
  assert.equal(me.statusCode, 200, me.body);
  return me.json();
}

function assertFailure(outcome: Outcome, code: string, status?: number) {
  assert.equal(outcome.session, undefined, 'no session on a failed sign-in');
  assert.match(outcome.callback.headers['content-type'] as string, /text\/html/);
  assert.ok(
    outcome.callback.body.includes(`<code>${code}</code>`),
    `expected ${code}: ${outcome.callback.body}`,
  );
  if (status) assert.equal(outcome.callback.statusCode, status);
  assert.ok(outcome.callback.statusCode < 500);
}

let idp: DevIdp;
let otherIdp: DevIdp;
before(async () => {
  idp = await startServiceIdp();
  otherIdp = await startServiceIdp();
});
after(async () => {
  await idp?.close();
  await otherIdp?.close();
});

function tenantWithProvider(ctx: TestContext, provider = idp, domains: string[] = []): Promise<SeededTenant> {
  return tenantWithIdp(ctx, provider, domains);
}

async function pushStudent(ctx: TestContext, tenant: SeededTenant, email: string, ext: string) {
  const push = await pushRoster(ctx, tenant, {
    students: [{ email, student_id_ext: ext, first_name: 'Ana' }],
  });
  assert.equal(push.statusCode, 200);
  assert.deepEqual(push.json().errors, []);
}

describeEachDatabase(
  'sign-in through a real OpenID provider',
  (ctx) => {
    test('admin, staff with and without Manage integrations, student and operator each get their session', async () => {
      const tenant = await tenantWithProvider(ctx());
      await invitePerson(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
        email: 'Admin@Example.edu',
      });
      await invitePerson(ctx(), tenant, { roles: ['staff'], email: 'staff@example.edu' });
      await pushStudent(ctx(), tenant, 'ana.lima@student.example.edu', 'S-1');

      const admin = await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-admin');
      assert.equal(admin.callback.statusCode, 303);
      assert.equal(admin.callback.headers.location, '/console/');
      const cookie = admin.callback.cookies.find((c) => c.name === 'ssp_session')!;
      assert.deepEqual([cookie.httpOnly, cookie.sameSite, cookie.path], [true, 'Lax', '/']);
      const adminMe = await whoAmI(ctx(), admin.session);
      assert.deepEqual(
        [adminMe.kind, adminMe.roles, adminMe.permissions],
        ['person', ['admin'], ['manage_integrations']],
      );

      const staff = await whoAmI(
        ctx(),
        (await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-staff')).session,
      );
      assert.deepEqual([staff.roles, staff.permissions], [['staff'], []]);

      const student = await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-ana');
      assert.equal(student.callback.headers.location, '/app/');
      assert.equal((await whoAmI(ctx(), student.session)).kind, 'student');

      // Staff with Manage integrations reach webhooks; without it they are refused.
      const hooks = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`;
      const get = (session: string | undefined) =>
        ctx().request({ method: 'GET', url: hooks, headers: { cookie: `ssp_session=${session}` } });
      assert.equal((await get(admin.session)).statusCode, 200);
      assert.equal(
        (await get((await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-staff')).session)).statusCode,
        403,
      );

      // The operator signs in through the platform's provider.
      await ctx().admin('PUT', '/admin/v1/identity-provider', {
        issuer: otherIdp.issuer,
        client_id: TEST_CLIENT.client_id,
        client_secret: TEST_CLIENT.client_secret,
      });
      await ctx().admin('POST', '/admin/v1/operators', {
        email: 'admin@example.edu',
        name: 'Platform operator',
      });
      const operator = await signIn(ctx(), '/auth/sign-in/operator', 'sub-admin');
      assert.equal((await whoAmI(ctx(), operator.session)).kind, 'operator');
      await ctx().admin('DELETE', '/admin/v1/identity-provider');
    });

    test('matching: by subject once linked, verified email first, unverified refused, unknown refused', async () => {
      const tenant = await tenantWithProvider(ctx());
      const person = await invitePerson(ctx(), tenant, { roles: ['staff'], email: 'staff@example.edu' });
      const first = await whoAmI(
        ctx(),
        (await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-staff')).session,
      );
      assert.equal(first.person_id, person.id);

      // The email changes at the provider: the linked subject still finds the person.
      idp.setPeople(
        TEST_PEOPLE.map((p) => (p.sub === 'sub-staff' ? { ...p, email: 'renamed@elsewhere.example' } : p)),
      );
      try {
        const again = await whoAmI(
          ctx(),
          (await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-staff')).session,
        );
        assert.equal(again.person_id, person.id);
      } finally {
        idp.setPeople(TEST_PEOPLE);
      }

      await pushStudent(ctx(), tenant, 'ben.okafor@student.example.edu', 'S-2');
      assertFailure(
        await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-unverified'),
        'email_not_verified',
        403,
      );
      assertFailure(await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-ana'), 'person_not_found', 403);
      const people = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/people`)).json().items;
      assert.equal(people.length, 1, 'nobody is created by signing in');
    });

    test('an email changed by the roster follows the student; the same email in two institutions', async () => {
      const a = await tenantWithProvider(ctx());
      const b = await tenantWithProvider(ctx());
      await pushStudent(ctx(), a, 'ana.lima@student.example.edu', 'S-9');
      const before = await whoAmI(ctx(), (await signIn(ctx(), `/auth/${a.slug}/sign-in`, 'sub-ana')).session);
      await pushStudent(ctx(), a, 'ana.new-address@student.example.edu', 'S-9');
      const afterRename = await whoAmI(
        ctx(),
        (await signIn(ctx(), `/auth/${a.slug}/sign-in`, 'sub-ana')).session,
      );
      assert.equal(afterRename.student_id, before.student_id);

      const inA = await invitePerson(ctx(), a, { roles: ['staff'], email: 'staff@example.edu' });
      const inB = await invitePerson(ctx(), b, { roles: ['admin'], email: 'staff@example.edu' });
      const meA = await whoAmI(ctx(), (await signIn(ctx(), `/auth/${a.slug}/sign-in`, 'sub-staff')).session);
      const meB = await whoAmI(ctx(), (await signIn(ctx(), `/auth/${b.slug}/sign-in`, 'sub-staff')).session);
      assert.deepEqual([meA.person_id, meA.institution_id, meA.roles], [inA.id, a.institutionId, ['staff']]);
      assert.deepEqual([meB.person_id, meB.institution_id, meB.roles], [inB.id, b.institutionId, ['admin']]);
    });

    test('tampered state, replayed callback, a code from another provider, cancel: a page, never a session', async () => {
      const tenant = await tenantWithProvider(ctx());
      const other = await tenantWithProvider(ctx(), otherIdp);
      await invitePerson(ctx(), tenant, { roles: ['staff'], email: 'staff@example.edu' });
      await invitePerson(ctx(), other, { roles: ['staff'], email: 'staff@example.edu' });
      const start = `/auth/${tenant.slug}/sign-in`;

      assertFailure(
        await signIn(ctx(), start, 'sub-staff', (callback, flowCookie) => {
          callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
          return { callback, flowCookie };
        }),
        'state_mismatch',
      );
      // The state of the browser's own flow, but the cookie of another: refused too (login CSRF).
      assertFailure(
        await signIn(ctx(), start, 'sub-staff', (callback) => ({ callback, flowCookie: 'not-the-state' })),
        'state_mismatch',
      );

      let replay: { callback: URL; flowCookie: string } | undefined;
      const ok = await signIn(ctx(), start, 'sub-staff', (callback, flowCookie) => {
        replay = { callback: new URL(callback), flowCookie };
        return { callback, flowCookie };
      });
      assert.ok(ok.session);
      const replayed = await ctx().request({
        method: 'GET',
        url: `${replay!.callback.pathname}${replay!.callback.search}`,
        headers: { cookie: `ssp_signin=${replay!.flowCookie}` },
      });
      assertFailure({ callback: replayed }, 'state_expired');

      // A code issued by another provider, spliced into this institution's flow.
      const foreignBegin = await ctx().request({ method: 'GET', url: `/auth/${other.slug}/sign-in` });
      const foreignCallback = await signInThroughProvider(
        foreignBegin.headers.location as string,
        'sub-staff',
      );
      const spliced = await signIn(ctx(), start, 'sub-staff', (callback, flowCookie) => {
        callback.searchParams.set('code', foreignCallback.searchParams.get('code')!);
        const iss = foreignCallback.searchParams.get('iss');
        if (iss) callback.searchParams.set('iss', iss);
        return { callback, flowCookie };
      });
      assert.equal(spliced.session, undefined);
      assert.match(spliced.callback.body, /<code>(issuer_mismatch|code_rejected)<\/code>/);

      // The person cancels at the provider.
      const begin = await ctx().request({ method: 'GET', url: start });
      const flowCookie = begin.cookies.find((c) => c.name === 'ssp_signin')!.value;
      const cancelled = await signInThroughProvider(begin.headers.location as string, 'sub-staff', {
        cancel: true,
      });
      const page = await ctx().request({
        method: 'GET',
        url: `${cancelled.pathname}${cancelled.search}`,
        headers: { cookie: `ssp_signin=${flowCookie}` },
      });
      assertFailure({ callback: page }, 'access_denied');
    });

    test('no provider, an unknown institution, a provider that is down: a clear page', async () => {
      const bare = await seedTenant(ctx());
      const notConfigured = await ctx().request({ method: 'GET', url: `/auth/${bare.slug}/sign-in` });
      assert.equal(notConfigured.statusCode, 404);
      assert.match(notConfigured.body, /<code>sso_not_configured<\/code>/);
      const unknown = await ctx().request({ method: 'GET', url: '/auth/no-such-place/sign-in' });
      assert.equal(unknown.statusCode, 404);
      assert.match(unknown.body, /<code>institution_not_found<\/code>/);

      const doomed = await startServiceIdp();
      const tenant = await tenantWithProvider(ctx(), doomed);
      await doomed.close();
      // Discovery is cached for a few minutes; a provider that vanished is found out at the token exchange.
      const begin = await ctx().request({ method: 'GET', url: `/auth/${tenant.slug}/sign-in` });
      assert.ok([302, 502].includes(begin.statusCode), begin.body);
      assert.ok(begin.statusCode === 302 || /provider_unreachable/.test(begin.body));
    });

    test('saving provider settings reads discovery at once and refuses a private issuer', async () => {
      const tenant = await seedTenant(ctx());
      const url = `/admin/v1/institutions/${tenant.slug}/identity-provider`;
      const body = { client_id: 'x', client_secret: 'y' };
      const privateIssuer = await ctx().admin('PUT', url, { ...body, issuer: 'https://10.0.0.8/realms/x' });
      assert.equal(privateIssuer.statusCode, 400);
      assert.equal(privateIssuer.json().error, 'url_not_allowed');
      const plainHttp = await ctx().admin('PUT', url, { ...body, issuer: 'http://idp.example.edu' });
      assert.equal(plainHttp.statusCode, 400);
      const missingSecret = await ctx().admin('PUT', url, { issuer: idp.issuer, client_id: 'x' });
      assert.equal(missingSecret.statusCode, 400);
      assert.equal(missingSecret.json().field, 'client_secret');
      assert.equal((await ctx().admin('GET', url)).statusCode, 404);
      // The stored secret is encrypted: the database alone does not reveal it.
      const ok = await ctx().admin('PUT', url, {
        ...body,
        issuer: idp.issuer,
        client_secret: 'a-client-secret-value',
      });
      assert.equal(ok.statusCode, 200, ok.body);
      const stored = await ctx().db.query<{ client_secret_encrypted: string }>(
        'SELECT client_secret_encrypted FROM identity_providers WHERE institution_id = $1',
        [tenant.institutionId],
      );
      assert.ok(!stored.rows[0].client_secret_encrypted.includes('a-client-secret-value'));
      assert.match(stored.rows[0].client_secret_encrypted, /^enc:v1:/);
    });

    test('the sign-in page finds an institution by name or by email domain', async () => {
      const tenant = await tenantWithProvider(ctx(), idp, [
        'Uni-Search.example.edu',
        '@staff.uni-search.example.edu',
      ]);
      const byDomain = await ctx().request({
        method: 'GET',
        url: '/auth/sign-in?q=Someone%40staff.uni-search.example.edu',
      });
      assert.equal(byDomain.statusCode, 200);
      assert.ok(byDomain.body.includes(`/auth/${tenant.slug}/sign-in`));
      const byName = await ctx().request({
        method: 'GET',
        url: `/auth/sign-in?q=${encodeURIComponent(tenant.slug.slice(0, 12))}`,
      });
      assert.ok(byName.body.includes(`/auth/${tenant.slug}/sign-in`));
      const none = await ctx().request({
        method: 'GET',
        url: '/auth/sign-in?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      });
      assert.ok(none.body.includes('&lt;script&gt;'), 'what was typed is escaped');
      assert.match(none.headers['content-security-policy'] as string, /script-src 'self'/);
    });
  },
  { config: SIGN_IN_CONFIG },
);
