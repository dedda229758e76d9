// The webhook portal: each attempt's request (headers, body) and response (status, headers, the
// first 4 KiB of body) through the API and the console, the event catalogue, showing the signing
// secret again (Manage integrations only, audited) and deleting an endpoint after a confirmation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Compile } from 'typebox/compile';
import { eventCatalogue } from '../../src/domain/webhooks/catalogue.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser, postForm } from '../helpers/people.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, emitEvent, testClock, withWorker } from '../helpers/webhooks.ts';

const receiver = receiverPool();

test('every example of the event catalogue matches its own schema', () => {
  for (const entry of eventCatalogue()) {
    assert.ok(Compile(entry.schema as never).Check(entry.example), entry.type);
  }
});

describeEachDatabase(
  'webhook portal',
  (ctx) => {
    test('an attempt shows what was sent and what came back; secret shown again; endpoint deleted', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const long = `{"error":"${'x'.repeat(6000)}"}`;
      const r = await receiver({ status: 503, headers: { 'x-receiver': 'busy' }, body: long });
      const endpoint = await addEndpoint(ctx(), tenant, { url: r.url });
      const clock = testClock();
      const event = await emitEvent(ctx(), tenant, clock, { type: 'help_request.created', data: {} });
      await withWorker(ctx(), tenant, clock, async (worker) => {
        await worker.drain();
      });
      assert.equal(r.received.length, 1);

      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints/${endpoint.id}`;
      const log = (await ctx().admin('GET', `${base}/attempts`)).json();
      const attemptId = log.items[0].id;
      const detail = await ctx().admin('GET', `${base}/attempts/${attemptId}`);
      assert.equal(detail.statusCode, 200, detail.body);
      const attempt = detail.json();
      assert.equal(attempt.request.method, 'POST');
      assert.equal(attempt.request.url, r.url);
      assert.equal(attempt.request.headers['webhook-id'], event.id);
      assert.equal(attempt.request.headers['webhook-signature'], r.received[0].headers['webhook-signature']);
      assert.equal(attempt.request.body, r.received[0].body, 'the exact bytes sent');
      assert.equal(attempt.response.status, 503);
      assert.equal(attempt.response.headers['x-receiver'], 'busy');
      assert.equal(Buffer.byteLength(attempt.response.body), 4096, 'the first 4 KiB');
      assert.equal(attempt.response.truncated, true);
      assert.ok(long.startsWith(attempt.response.body));
      // Unknown and malformed attempt ids are 404, as is another institution's endpoint.
      assert.equal((await ctx().admin('GET', `${base}/attempts/99999999`)).statusCode, 404);
      assert.equal((await ctx().admin('GET', `${base}/attempts/not-a-number`)).statusCode, 404);
      const other = await seedTenant(ctx(), { rosterSecret: false });
      const foreign = `/admin/v1/institutions/${other.slug}/webhook-endpoints/${endpoint.id}/attempts/${attemptId}`;
      assert.equal((await ctx().admin('GET', foreign)).statusCode, 404);

      // The console: the attempt's page, linked from the delivery log.
      const manager = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
        name: 'Mo Manager',
      });
      const get = async (url: string, status = 200) => {
        const res = await ctx().app.inject({ method: 'GET', url, headers: { cookie: manager.cookie } });
        assert.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 200)}`);
        return res.body;
      };
      const post = (url: string, form: Record<string, string>) => postForm(ctx(), manager, url, form);
      const page = `/console/${tenant.slug}/webhooks/${endpoint.id}`;
      assert.match(await get(page), new RegExp(`href="${page}/attempts/${attemptId}"`));
      const attemptPage = await get(`${page}/attempts/${attemptId}`);
      assert.match(attemptPage, /<code>webhook-signature<\/code>/);
      assert.match(attemptPage, /x-receiver/);
      assert.match(attemptPage, /Body \(the first 4 KiB\)/);
      assert.match(attemptPage, /&quot;help_request.created&quot;|"help_request.created"/);
      await get(`${page}/attempts/12345678`, 404);
      assert.match(await get(`/console/${tenant.slug}/webhooks/events`), /<code>help_request.crisis<\/code>/);

      // Showing the secret again: asked first (nothing audited), then shown and audited.
      const ask = await post(`${page}/reveal-secret`, {});
      assert.equal(ask.statusCode, 200);
      assert.match(ask.body, /Show the signing secret\?/);
      const shown = await post(`${page}/reveal-secret`, { confirmed: 'yes' });
      assert.equal(shown.statusCode, 200);
      assert.ok(shown.body.includes(`value="${endpoint.secret}"`), 'the current secret is shown');
      const viaApi = await manager.request('POST', `${base}/reveal-secret`);
      assert.equal(viaApi.json().secret, endpoint.secret);
      const audit = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audit`);
      const reveals = audit
        .json()
        .items.filter((e: { action: string }) => e.action.endsWith('/reveal-secret'));
      assert.equal(reveals.length, 2, 'the console and the API reveal, each audited once');
      assert.ok(reveals.every((e: { actor: string }) => e.actor === 'Mo Manager'));
      // An admin without Manage integrations may not.
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      assert.equal((await admin.request('POST', `${base}/reveal-secret`)).statusCode, 403);

      // Deleting: a confirmation, then gone with its log.
      assert.match((await post(`${page}/delete`, {})).body, /Delete this endpoint\?/);
      const deleted = await post(`${page}/delete`, { confirmed: 'yes' });
      assert.equal(deleted.statusCode, 303);
      assert.match(String(deleted.headers.location), /done=webhook_deleted/);
      assert.equal((await ctx().admin('GET', base)).statusCode, 404);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
