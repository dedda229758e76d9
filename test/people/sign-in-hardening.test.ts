// Sign-in against hostile input, through the real provider (src/dev-idp over real HTTP): an
// address spelled with the Kelvin sign does not take over the person whose address has a `k`;
// a control character in return_to is refused at the start, not after the round trip; sign-in
// starts are limited per client and the sign-ins under way are capped; a client's x-request-id
// is kept only when it is a short safe token; every sign-in error page says what went wrong.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  describeEachDatabase,
  OPERATOR_TOKEN,
  type SeededTenant,
  seedTenant,
  type TestContext,
} from '../helpers/app.ts';
import { type DevIdp, TEST_PEOPLE } from '../helpers/idp.ts';
import { invitePerson } from '../helpers/people.ts';
import {
  SIGN_IN_CONFIG,
  signInAtService,
  startServiceIdp,
  tenantWithProvider as tenantWithIdp,
} from '../helpers/sign-in.ts';

const KELVIN = '\u212A';

let idp: DevIdp;
before(async () => {
  idp = await startServiceIdp([
    ...TEST_PEOPLE,
    { sub: 'sub-kate', email: 'kate@example.edu', email_verified: true, name: 'Kate' },
    { sub: 'sub-kelvin', email: `${KELVIN}ate@example.edu`, email_verified: true, name: 'Not Kate' },
  ]);
});
after(() => idp?.close());

const tenantWithProvider = (ctx: TestContext) => tenantWithIdp(ctx, idp);
const signIn = signInAtService;

/** The message paragraph of a sign-in error page. */
function shownMessage(body: string): string {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(body)?.[1] ?? '';
}

const provider = SIGN_IN_CONFIG;

describeEachDatabase(
  'sign-in hardening',
  (ctx) => {
    test('the Kelvin sign does not match k: refused as email_ambiguous, and the real Kate still signs in', async () => {
      const tenant = await tenantWithProvider(ctx());
      await invitePerson(ctx(), tenant, { roles: ['admin'], email: 'kate@example.edu', name: 'Kate' });
      const start = `/auth/${tenant.slug}/sign-in`;
      const impostor = await signIn(ctx(), start, 'sub-kelvin');
      assert.equal(impostor.session, undefined, 'no session for the Kelvin-sign address');
      assert.equal(impostor.callback.statusCode, 403, impostor.callback.body);
      assert.match(impostor.callback.body, /<code>email_ambiguous<\/code>/);
      assert.match(shownMessage(impostor.callback.body), /cannot be matched safely/);
      const kate = await signIn(ctx(), start, 'sub-kate');
      assert.ok(kate.session, kate.callback.body);
    });

    test('every sign-in error page shows its message, never "undefined"', async () => {
      const tenant = await tenantWithProvider(ctx());
      const unknown = await ctx().request({ method: 'GET', url: '/auth/no-such-place/sign-in' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(shownMessage(unknown.body), 'There is no institution at this address.');
      const stranger = await signIn(ctx(), `/auth/${tenant.slug}/sign-in`, 'sub-staff');
      assert.match(stranger.callback.body, /<code>person_not_found<\/code>/);
      assert.match(shownMessage(stranger.callback.body), /^Your account is not known here\./);
      const noState = await ctx().request({ method: 'GET', url: '/auth/callback?code=x' });
      assert.match(shownMessage(noState.body), /carries no state/);
      for (const page of [unknown, stranger.callback, noState]) assert.doesNotMatch(page.body, /undefined/);
    });

    test('a control character in return_to is refused at the start of sign-in', async () => {
      const tenant = await tenantWithProvider(ctx());
      for (const bad of [
        '/console/x%01y',
        '/console/?a=%7F',
        '/app/%0D%0ASet-Cookie:x=1',
        '/console/%C3%A9',
      ]) {
        const start = await ctx().request({
          method: 'GET',
          url: `/auth/${tenant.slug}/sign-in?return_to=${bad}`,
        });
        assert.equal(start.statusCode, 400, `${bad}: ${start.body.slice(0, 200)}`);
        assert.match(start.body, /<code>return_to_invalid<\/code>/);
        assert.equal(start.headers.location, undefined, 'not sent to the provider');
      }
      // A good one still comes back where it asked.
      await invitePerson(ctx(), tenant, { roles: ['staff'], email: 'staff@example.edu' });
      const good = await signIn(
        ctx(),
        `/auth/${tenant.slug}/sign-in?return_to=${encodeURIComponent(`/console/${tenant.slug}/inbox?status=new`)}`,
        'sub-staff',
      );
      assert.equal(good.callback.statusCode, 303, good.callback.body);
      assert.equal(good.callback.headers.location, `/console/${tenant.slug}/inbox?status=new`);
    });

    test('x-request-id from a client is kept only when it is a short safe token', async () => {
      const tenant = await seedTenant(ctx());
      const url = `/admin/v1/institutions/${tenant.slug}/cohorts`;
      const kept = await ctx().request({
        method: 'POST',
        url,
        token: OPERATOR_TOKEN,
        headers: { 'x-request-id': 'trace-42.a_b' },
        body: { name: 'Traced' },
      });
      assert.equal(kept.headers['x-request-id'], 'trace-42.a_b');
      for (const bad of ['has space', 'x'.repeat(65), 'quote"d', 'line\u2028sep', '']) {
        const answer = await ctx().app.inject({
          method: 'GET',
          url: '/health/live',
          headers: { 'x-request-id': bad },
        });
        assert.match(
          answer.headers['x-request-id'] as string,
          /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
          JSON.stringify(bad),
        );
      }
      const forged = await ctx().request({
        method: 'POST',
        url,
        token: OPERATOR_TOKEN,
        headers: { 'x-request-id': 'evil id"}{' },
        body: { name: 'Forged' },
      });
      assert.equal(forged.statusCode, 201);
      const { rows } = await ctx().db.query<{ request_id: string }>(
        'SELECT request_id FROM admin_audit WHERE institution_id = $1 ORDER BY at',
        [tenant.institutionId],
      );
      const ids = rows.map((r) => r.request_id);
      assert.ok(ids.includes('trace-42.a_b'));
      assert.ok(!ids.includes('evil id"}{'));
      assert.ok(ids.includes(forged.headers['x-request-id'] as string));
    });
  },
  { config: provider },
);

describeEachDatabase(
  'sign-in starts: limited per client, capped while under way',
  (ctx) => {
    test('the fourth start in a minute from one client is a 429 page; a full table of flows is a 503 page', async () => {
      const tenant = await tenantWithProvider(ctx());
      const start = (ip: string) =>
        ctx().app.inject({ method: 'GET', url: `/auth/${tenant.slug}/sign-in`, remoteAddress: ip });
      for (let i = 0; i < 3; i++) assert.equal((await start('192.0.2.1')).statusCode, 302);
      const limited = await start('192.0.2.1');
      assert.equal(limited.statusCode, 429, limited.body.slice(0, 300));
      assert.match(limited.headers['content-type'] as string, /text\/html/);
      assert.match(limited.body, /<code>rate_limited<\/code>/);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // Three flows are under way; two more clients fill the cap of five.
      assert.equal((await start('192.0.2.2')).statusCode, 302);
      assert.equal((await start('192.0.2.3')).statusCode, 302);
      const busy = await start('192.0.2.4');
      assert.equal(busy.statusCode, 503, busy.body.slice(0, 300));
      assert.match(busy.body, /<code>sign_in_busy<\/code>/);
      assert.match(shownMessage(busy.body), /Too many sign-ins are under way/);
    });
  },
  { config: { ...provider, signInRateLimitPerMinute: 3, signInPendingMax: 5 } },
);

describeEachDatabase(
  'sign-ins under way: capped per institution and per client network too',
  (ctx) => {
    test('one network cannot fill the cap, and one institution full does not stop another', async () => {
      const a = await tenantWithProvider(ctx());
      const b = await tenantWithProvider(ctx());
      const start = (tenant: SeededTenant, ip: string) =>
        ctx().app.inject({ method: 'GET', url: `/auth/${tenant.slug}/sign-in`, remoteAddress: ip });
      // Three addresses of one /24 use up the network's share; a fourth of it is refused.
      for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        assert.equal((await start(a, ip)).statusCode, 302);
      }
      const network = await start(b, '198.51.100.77');
      assert.equal(network.statusCode, 429, network.body.slice(0, 300));
      assert.match(network.body, /<code>sign_in_busy_network<\/code>/);
      assert.match(shownMessage(network.body), /from your network/);
      // Another network still starts; then A is at its cap of four, and B is not.
      assert.equal((await start(a, '203.0.113.5')).statusCode, 302);
      const full = await start(a, '192.0.2.9');
      assert.equal(full.statusCode, 503, full.body.slice(0, 300));
      assert.match(full.body, /<code>sign_in_busy<\/code>/);
      assert.equal((await start(b, '192.0.2.9')).statusCode, 302);
      // IPv6 addresses count by their /64.
      assert.equal((await start(b, '2001:db8:5:6::1')).statusCode, 302);
      assert.equal((await start(b, '2001:db8:5:6::2')).statusCode, 302);
      assert.equal((await start(b, '2001:db8:5:6:ffff::3')).statusCode, 302);
      assert.equal((await start(b, '2001:db8:5:6::4')).statusCode, 429);
    });
  },
  {
    config: {
      ...provider,
      signInRateLimitPerMinute: 100,
      signInPendingMax: 100,
      signInPendingPerInstitution: 4,
      signInPendingPerNetwork: 3,
    },
  },
);
