import assert from 'node:assert/strict';
import { test } from 'node:test';
import { syncRowErrorMessages } from '../../src/domain/helpdesk/rules.ts';
import { authenticateRoster } from '../../src/domain/secrets/roster-secrets.ts';
import { ApiError } from '../../src/errors.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { createHelpRequest, helpSync, seedHelpdesk } from '../helpers/helpdesk.ts';

/** A failed result row: the code and, beside it, the message for people. */
const failed = (helpRequestId: string, error: keyof typeof syncRowErrorMessages) => ({
  help_request_id: helpRequestId,
  ok: false,
  error,
  message: syncRowErrorMessages[error],
});

describeEachDatabase('help-sync secrets', (ctx) => {
  const base = (slug: string) => `/admin/v1/institutions/${slug}/help-sync-secret`;
  const body = (slug: string) => ({ institution: slug, updates: [] });

  test('issue shows the plaintext once and stores only its SHA-256', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    assert.equal((await ctx().admin('GET', base(tenant.slug))).json().state, 'never_issued');
    const issued = await ctx().admin('POST', base(tenant.slug));
    assert.equal(issued.statusCode, 201);
    const secret = issued.json().secret as string;
    assert.match(secret, /^ssp_sync_[A-Za-z0-9_-]{43}$/);
    assert.equal(issued.json().institution, tenant.slug);
    const status = (await ctx().admin('GET', base(tenant.slug))).json();
    assert.equal(status.state, 'active');
    assert.ok(!('secret' in status));
    const again = await ctx().admin('POST', base(tenant.slug));
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error, 'conflict');
    const stored = await ctx().db.query<{ secret_hash: string }>(
      'SELECT secret_hash FROM help_sync_secrets WHERE institution_id = $1',
      [tenant.institutionId],
    );
    assert.deepEqual(
      stored.rows.map((r) => r.secret_hash),
      [sha256Hex(secret)],
    );
  });

  test('401 codes: missing, wrong, revoked, never issued', async () => {
    const tenant = await seedHelpdesk(ctx());
    const never = await seedTenant(ctx(), { rosterSecret: false });

    const missing = await helpSync(ctx(), undefined, body(tenant.slug));
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().error, 'sync_secret_missing');
    const notBearer = await ctx().request({
      method: 'POST',
      url: '/api/integrations/help-sync',
      body: body(tenant.slug),
      headers: { authorization: `Basic ${tenant.syncSecret}` },
    });
    assert.equal(notBearer.json().error, 'sync_secret_missing');

    const wrong = await helpSync(ctx(), `${tenant.syncSecret}x`, body(tenant.slug));
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'sync_secret_wrong');

    const neverIssued = await helpSync(ctx(), 'ssp_sync_anything', body(never.slug));
    assert.equal(neverIssued.statusCode, 401);
    assert.equal(neverIssued.json().error, 'sync_secret_never_issued');
    // Unknown institution with an unknown secret: wrong (nothing to say about an institution).
    const unknown = await helpSync(ctx(), 'ssp_sync_anything', body('no-such-place'));
    assert.equal(unknown.json().error, 'sync_secret_wrong');

    assert.equal((await ctx().admin('DELETE', base(tenant.slug))).statusCode, 204);
    const revoked = await helpSync(ctx(), tenant.syncSecret, body(tenant.slug));
    assert.equal(revoked.statusCode, 401);
    assert.equal(revoked.json().error, 'sync_secret_revoked');
    assert.equal((await ctx().admin('GET', base(tenant.slug))).json().state, 'revoked');
    assert.equal((await ctx().admin('DELETE', base(tenant.slug))).statusCode, 404);
    // After a revocation a new secret may be issued.
    const reissued = await ctx().admin('POST', base(tenant.slug));
    assert.equal(reissued.statusCode, 201);
    assert.equal((await helpSync(ctx(), reissued.json().secret, body(tenant.slug))).statusCode, 200);
  });

  test('401 comes before body validation; malformed bodies from unknown callers learn nothing', async () => {
    const tenant = await seedHelpdesk(ctx());
    const res = await helpSync(ctx(), 'nope', { institution: tenant.slug, updates: 'x' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'sync_secret_wrong');
  });

  test('rotation stops the old secret at once; revocation is immediate', async () => {
    const tenant = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), tenant);
    const row = {
      institution: tenant.slug,
      updates: [{ help_request_id: request.id, action: 'acknowledge' }],
    };
    assert.equal((await helpSync(ctx(), tenant.syncSecret, row)).statusCode, 200);
    const rotated = await ctx().admin('POST', `${base(tenant.slug)}/rotate`);
    assert.equal(rotated.statusCode, 201);
    const fresh = rotated.json().secret as string;
    assert.notEqual(fresh, tenant.syncSecret);
    assert.equal((await helpSync(ctx(), tenant.syncSecret, row)).json().error, 'sync_secret_revoked');
    assert.equal((await helpSync(ctx(), fresh, row)).statusCode, 200);
    assert.equal((await ctx().admin('DELETE', base(tenant.slug))).statusCode, 204);
    assert.equal((await helpSync(ctx(), fresh, row)).json().error, 'sync_secret_revoked');
    // Rotating with nothing active issues a first one.
    const other = await seedTenant(ctx(), { rosterSecret: false });
    assert.equal((await ctx().admin('POST', `${base(other.slug)}/rotate`)).statusCode, 201);
  });

  test('a roster secret never authenticates here, and a sync secret never authenticates the roster feed', async () => {
    const tenant = await seedHelpdesk(ctx());
    assert.ok(tenant.rosterSecret);
    const withRoster = await helpSync(ctx(), tenant.rosterSecret, body(tenant.slug));
    assert.equal(withRoster.statusCode, 401);
    assert.equal(withRoster.json().error, 'sync_secret_wrong');
    await assert.rejects(
      authenticateRoster(ctx().deps, tenant.syncSecret),
      (error) => error instanceof ApiError && error.status === 401,
    );
    // And the roster secret itself still works for the roster feed.
    const caller = await authenticateRoster(ctx().deps, tenant.rosterSecret);
    assert.deepEqual(caller, { kind: 'institution', institutionId: tenant.institutionId });
  });

  test("another institution's secret with this institution's slug: every row not_found", async () => {
    const a = await seedHelpdesk(ctx());
    const b = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), b);
    const res = await helpSync(ctx(), a.syncSecret, {
      institution: b.slug,
      updates: [{ help_request_id: request.id, action: 'resolve' }],
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().results, [failed(request.id, 'not_found')]);
  });
});
