import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type SyncRowError, syncRowErrorMessages, syncRowErrors } from '../../src/domain/helpdesk/rules.ts';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, type HelpdeskTenant, seedHelpdesk } from '../helpers/helpdesk.ts';

// No help-sync body of any shape yields a 5xx; a 200 always has one result per update row, and
// no row answers update_failed (a transient database failure) when no fault is injected: input
// the database cannot store (NUL, lone surrogates) must be that row's own error.
describeEachDatabase('help-sync: no input yields a 5xx (property-based)', (ctx) => {
  let tenant: HelpdeskTenant;
  let ids: string[] = [];

  const check = (res: { statusCode: number; body: string }, rows?: unknown) => {
    assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
    const json = JSON.parse(res.body);
    if (res.statusCode === 200) {
      assert.ok(Array.isArray(rows));
      assert.equal(json.results.length, rows.length);
      for (const result of json.results) {
        assert.equal(typeof result.help_request_id, 'string');
        assert.equal(typeof result.ok, 'boolean');
        if (result.ok) assert.equal(typeof result.status, 'string');
        else {
          assert.ok(syncRowErrors.includes(result.error), `a documented code: ${result.error}`);
          assert.equal(result.message, syncRowErrorMessages[result.error as SyncRowError]);
        }
        assert.notEqual(result.error, 'update_failed', JSON.stringify(result));
      }
    } else {
      assert.equal(typeof json.error, 'string');
    }
  };

  test('setup', async () => {
    tenant = await seedHelpdesk(ctx());
    ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createHelpRequest(ctx(), tenant, { student: i })).id);
  });

  // Full-Unicode text: any UTF-16 code unit (lone surrogates included), and NUL explicitly.
  const text = (constraints: { minLength?: number; maxLength: number }) =>
    fc.oneof(
      fc.string({ unit: 'binary', ...constraints }),
      fc.string({ unit: 'binary-ascii', ...constraints }),
      fc
        .tuple(fc.string({ unit: 'binary', maxLength: 5 }), fc.constantFrom('\u0000', '\ud800', '\udfff'))
        .map(([a, b]) => `${a}${b}${a}`),
    );
  const nonBlank = (maxLength: number) =>
    text({ minLength: 1, maxLength }).filter((t) => t.trim() !== '' && t.length <= maxLength);

  const value = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    text({ maxLength: 30 }),
    fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udc00'),
    text({ minLength: 195, maxLength: 210 }),
    fc.constantFrom('acknowledge', 'note', 'resolve', 'reopen', 'close', ''),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.uuid(),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
  );

  const validRow = () =>
    fc.record(
      {
        help_request_id: fc.constantFrom(...ids),
        action: fc.constantFrom('acknowledge', 'note', 'resolve', 'reopen'),
        note: nonBlank(20),
        external_ref: text({ minLength: 1, maxLength: 200 }),
        actor: nonBlank(30),
        observed_at: fc.date({ noInvalidDate: true, min: new Date(0) }).map((d) => d.toISOString()),
      },
      { requiredKeys: ['help_request_id', 'action', 'note'] },
    );

  const row = () =>
    fc.oneof(
      validRow(),
      fc.record(
        {
          help_request_id: fc.oneof(fc.constantFrom(...ids), value),
          action: fc.oneof(fc.constantFrom('acknowledge', 'note', 'resolve', 'reopen'), value),
          note: value,
          external_ref: value,
          actor: value,
          observed_at: value,
          priority: value,
        },
        { requiredKeys: [] },
      ),
      fc.anything({ maxDepth: 2, key: text({ maxLength: 10 }) }),
    );

  test('structured bodies with rows of any shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            institution: fc.oneof(fc.constant(tenant.slug), value),
            actor: value,
            updates: fc.oneof(fc.array(row(), { maxLength: 12 }), value),
            dry_run: value,
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const payload = JSON.stringify(body);
          const res = await ctx().app.inject({
            method: 'POST',
            url: '/api/integrations/help-sync',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.syncSecret}` },
            payload,
          });
          check(res, (JSON.parse(payload) as { updates?: unknown }).updates);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('any unknown top-level field is 400 unknown_field naming it; no row is applied', async () => {
    const known = ['institution', 'actor', 'updates'];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(text({ maxLength: 12 }), fc.constantFrom('dry_run', 'update', 'Institution', 'actors')),
        value,
        async (key, extra) => {
          fc.pre(!known.includes(key) && key !== '__proto__');
          const payload = JSON.stringify({
            institution: tenant.slug,
            updates: [{ help_request_id: ids[0], action: 'note', note: 'never applied' }],
            [key]: extra ?? null,
          });
          const res = await ctx().app.inject({
            method: 'POST',
            url: '/api/integrations/help-sync',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.syncSecret}` },
            payload,
          });
          assert.equal(res.statusCode, 400, res.body);
          assert.deepEqual([res.json().error, res.json().field], ['unknown_field', key]);
        },
      ),
      { numRuns: 30 },
    );
    const { rows } = await ctx().db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM help_request_timeline WHERE institution_id = $1 AND note = 'never applied'`,
      [tenant.institutionId],
    );
    assert.equal(rows[0].n, 0);
  });

  test('valid envelopes with rows of any shape: 200 with one result per row', async () => {
    let ok = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row(), { minLength: 1, maxLength: 12 }),
        fc.option(
          nonBlank(20).filter((a) => !a.includes('\u0000') && a.isWellFormed()),
          { nil: undefined },
        ),
        async (updates, actor) => {
          const payload = JSON.stringify({ institution: tenant.slug, actor, updates });
          const res = await ctx().app.inject({
            method: 'POST',
            url: '/api/integrations/help-sync',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.syncSecret}` },
            payload,
          });
          assert.equal(res.statusCode, 200, res.body);
          check(res, (JSON.parse(payload) as { updates: unknown[] }).updates);
          ok += (res.json().results as { ok: boolean }[]).filter((r) => r.ok).length;
        },
      ),
      { numRuns: 30 },
    );
    assert.ok(ok > 0, 'some rows applied');
  });

  test('any JSON value and any text as the body, with good and bad tokens', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.json({ maxDepth: 3 }), text({ maxLength: 60 })),
        fc.constantFrom('good', 'bad', 'none'),
        async (payload, tokenKind) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (tokenKind !== 'none') {
            headers.authorization = `Bearer ${tokenKind === 'good' ? tenant.syncSecret : 'ssp_sync_x'}`;
          }
          const res = await ctx().app.inject({
            method: 'POST',
            url: '/api/integrations/help-sync',
            headers,
            payload,
          });
          assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
        },
      ),
      { numRuns: 40 },
    );
  });
});
