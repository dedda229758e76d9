// Nobody signs in as a colleague by changing the institution's identity provider. The attack:
// an admin points the provider at an issuer they run, where an account claims a Manage
// integrations holder's email; the stored client secret follows, and the verified email links
// that account to the holder. Through the admin API and the real sign-in flow, against two real
// OpenID providers (the genuine one and the one the attacker runs).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { type DevIdp, signInThroughProvider, startTestIdp, TEST_CLIENT } from '../helpers/idp.ts';
import { invitePerson, operatorBrowser, personBrowser } from '../helpers/people.ts';

const PUBLIC = 'http://127.0.0.1:3000';
const client = { ...TEST_CLIENT, redirect_uris: [`${PUBLIC}/auth/callback`] };

let genuine: DevIdp;
let rogue: DevIdp;
before(async () => {
  genuine = await startTestIdp({ clients: [client], people: [] });
  rogue = await startTestIdp({ clients: [client], people: [] });
});
after(async () => {
  await genuine?.close();
  await rogue?.close();
});

/** A browser's whole sign-in at the institution: the callback's answer and the session, if any. */
async function signIn(ctx: TestContext, tenant: SeededTenant, sub: string) {
  const begin = await ctx.request({ method: 'GET', url: `/auth/${tenant.slug}/sign-in` });
  assert.equal(begin.statusCode, 302, begin.body);
  const flowCookie = begin.cookies.find((c) => c.name === 'ssp_signin')!.value;
  const callback = await signInThroughProvider(begin.headers.location as string, sub);
  const done = await ctx.request({
    method: 'GET',
    url: `${callback.pathname}${callback.search}`,
    headers: { cookie: `ssp_signin=${flowCookie}` },
  });
  const session = done.cookies.find((c) => c.name === 'ssp_session' && c.value)?.value;
  let personId: string | undefined;
  if (session) {
    const me = await ctx.request({
      method: 'GET',
      url: '/admin/v1/me',
      headers: { cookie: `ssp_session=${session}` },
    });
    personId = me.json().person_id;
  }
  return { done, session, personId };
}

const providerPath = (tenant: SeededTenant) => `/admin/v1/institutions/${tenant.slug}/identity-provider`;

describeEachDatabase(
  'changing the identity provider',
  (ctx) => {
    test('an admin cannot take over a colleague by pointing the provider at an issuer they run', async () => {
      const tenant = await seedTenant(ctx());
      const holderEmail = `holder-${tenant.slug}@example.edu`;
      genuine.setPeople([
        { sub: `g-${tenant.slug}`, email: holderEmail, email_verified: true, name: 'Holder' },
      ]);
      rogue.setPeople([
        { sub: `r-${tenant.slug}`, email: holderEmail, email_verified: true, name: 'Not the holder' },
        {
          sub: `new-${tenant.slug}`,
          email: `new-${tenant.slug}@example.edu`,
          email_verified: true,
          name: 'New',
        },
      ]);
      const setUp = await ctx().admin('PUT', providerPath(tenant), {
        issuer: genuine.issuer,
        client_id: client.client_id,
        client_secret: client.client_secret,
      });
      assert.equal(setUp.statusCode, 200, setUp.body);
      assert.ok(!setUp.json().links_held_since, 'an issuer the operator sets is trusted');
      const holder = await invitePerson(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
        email: holderEmail,
      });
      const first = await signIn(ctx(), tenant, `g-${tenant.slug}`);
      assert.equal(first.personId, holder.id, first.done.body);

      // A plain admin may read the settings, not change or remove them.
      const plainAdmin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      assert.equal((await plainAdmin.request('GET', providerPath(tenant))).statusCode, 200);
      for (const body of [
        { issuer: rogue.issuer, client_id: client.client_id },
        { issuer: rogue.issuer, client_id: client.client_id, client_secret: client.client_secret },
      ]) {
        const refused = await plainAdmin.request('PUT', providerPath(tenant), body);
        assert.equal(refused.statusCode, 403, refused.body);
        assert.equal(refused.json().error, 'forbidden');
      }
      assert.equal((await plainAdmin.request('DELETE', providerPath(tenant))).statusCode, 403);

      // A holder may change it, but the stored secret never goes to another issuer.
      const holder2 = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const noSecret = await holder2.request('PUT', providerPath(tenant), {
        issuer: rogue.issuer,
        client_id: client.client_id,
      });
      assert.equal(noSecret.statusCode, 400, noSecret.body);
      assert.deepEqual([noSecret.json().error, noSecret.json().field], ['missing_field', 'client_secret']);
      const changed = await holder2.request('PUT', providerPath(tenant), {
        issuer: rogue.issuer,
        client_id: client.client_id,
        client_secret: client.client_secret,
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.ok(changed.json().links_held_since, 'email linking of existing people is held');
      // Saving the other settings again keeps the hold and needs no secret.
      const again = await holder2.request('PUT', providerPath(tenant), {
        issuer: rogue.issuer,
        client_id: client.client_id,
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().links_held_since, changed.json().links_held_since);

      // The rogue account claiming the holder's verified email is not linked to the holder.
      const takeover = await signIn(ctx(), tenant, `r-${tenant.slug}`);
      assert.equal(takeover.session, undefined, 'no session for the rogue account');
      assert.equal(takeover.done.statusCode, 403);
      assert.ok(takeover.done.body.includes('<code>link_confirmation_required</code>'), takeover.done.body);

      // Someone invited after the change links as usual.
      const invited = await invitePerson(ctx(), tenant, {
        roles: ['staff'],
        email: `new-${tenant.slug}@example.edu`,
      });
      const newcomer = await signIn(ctx(), tenant, `new-${tenant.slug}`);
      assert.equal(newcomer.personId, invited.id, newcomer.done.body);

      // Only the operator confirms the issuer; then existing people link at it. The console's
      // People page says a confirmation is awaited, and offers it to the operator only.
      const confirmation = `${providerPath(tenant)}/confirmation`;
      assert.equal((await holder2.request('POST', confirmation)).statusCode, 403);
      const holderPage = await holder2.request('GET', `/console/${tenant.slug}/people`);
      assert.match(holderPage.body, /until the platform operator confirms it/);
      assert.doesNotMatch(holderPage.body, /Confirm this issuer/);
      const operator = await operatorBrowser(ctx());
      const operatorPage = await operator.request('GET', `/console/${tenant.slug}/people`);
      assert.match(operatorPage.body, /Confirm this issuer/);
      const confirmedInConsole = await ctx().app.inject({
        method: 'POST',
        url: `/console/${tenant.slug}/identity-provider/confirmation`,
        headers: { cookie: operator.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: operator.csrf }).toString(),
      });
      assert.equal(confirmedInConsole.statusCode, 303, confirmedInConsole.body);
      const confirmed = await ctx().admin('GET', providerPath(tenant));
      assert.equal(confirmed.json().links_held_since, null);
      const afterConfirmation = await signIn(ctx(), tenant, `r-${tenant.slug}`);
      assert.equal(afterConfirmation.personId, holder.id, afterConfirmation.done.body);

      // Links stay per issuer: set back to the genuine issuer, the holder's first link still works.
      const back = await ctx().admin('PUT', providerPath(tenant), {
        issuer: genuine.issuer,
        client_id: client.client_id,
        client_secret: client.client_secret,
      });
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(back.json().links_held_since, null, "the operator's own change needs no confirmation");
      const home = await signIn(ctx(), tenant, `g-${tenant.slug}`);
      assert.equal(home.personId, holder.id, home.done.body);
    });
  },
  { config: { allowLoopbackOutbound: true, publicBaseUrl: PUBLIC } },
);
