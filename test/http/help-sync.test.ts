import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { syncRowErrorMessages } from '../../src/domain/helpdesk/rules.ts';
import { describeEachDatabase, type TestContext } from '../helpers/app.ts';
import {
  createHelpRequest,
  type HelpdeskTenant,
  helpSync,
  readEvents,
  readHelpRequest,
  seedHelpdesk,
  staff,
} from '../helpers/helpdesk.ts';
import { invitePerson } from '../helpers/people.ts';
import { stateTable } from '../helpers/state-table.ts';

/** A failed result row: the code and, beside it, the message for people. */
const failed = (helpRequestId: string, error: keyof typeof syncRowErrorMessages) => ({
  help_request_id: helpRequestId,
  ok: false,
  error,
  message: syncRowErrorMessages[error],
});

/** Puts a request into `status` through staff changes (new needs none). */
async function requestIn(ctx: TestContext, tenant: HelpdeskTenant, status: string) {
  const request = await createHelpRequest(ctx, tenant);
  if (status !== 'new') await staff(ctx, tenant, request.id, 'status', { status });
  return request.id;
}

// The suites below share one app per database: every test that writes does so in an institution
// of its own.
describeEachDatabase('help-sync', (ctx) => {
  describe('state table and row results', () => {
    const sync = (tenant: HelpdeskTenant, updates: unknown[], extra: Record<string, unknown> = {}) =>
      helpSync(ctx(), tenant.syncSecret, { institution: tenant.slug, actor: 'Zendesk', updates, ...extra });

    test('every transition of the state table, including the no-ops', async () => {
      const tenant = await seedHelpdesk(ctx());
      const cases: [from: string, action: string, to: string, changed: boolean][] = [
        ...stateTable,
        ['new', 'note', 'new', true],
        ['ack', 'note', 'ack', true],
        ['in_progress', 'note', 'in_progress', true],
        ['resolved', 'note', 'resolved', true],
      ];
      const ids: string[] = [];
      for (const [from] of cases) ids.push(await requestIn(ctx(), tenant, from));
      const before = await Promise.all(ids.map((id) => readHelpRequest(ctx(), tenant, id)));
      const res = await sync(
        tenant,
        cases.map(([, action], i) => ({
          help_request_id: ids[i],
          action,
          ...(action === 'note' ? { note: `note ${i}` } : {}),
        })),
      );
      assert.equal(res.statusCode, 200);
      const results = res.json().results;
      assert.equal(results.length, cases.length);
      for (const [i, [from, action, to, changed]] of cases.entries()) {
        const label = `${from} + ${action}`;
        assert.deepEqual(results[i], { help_request_id: ids[i], ok: true, status: to, changed }, label);
        const after = await readHelpRequest(ctx(), tenant, ids[i]);
        assert.equal(after.status, to, label);
        assert.equal(after.version, before[i].version + (changed ? 1 : 0), label);
        if (to === 'resolved' && from !== 'resolved') assert.ok(after.resolved_at, `${label}: resolved time`);
        if (from === 'resolved' && to === 'in_progress') assert.equal(after.resolved_at, null, label);
        if (from === 'resolved' && to === 'resolved') assert.equal(after.resolved_at, before[i].resolved_at);
        const last = after.timeline.at(-1)!;
        if (changed) {
          assert.equal(last.origin, 'integration', label);
          assert.equal(last.actor, 'Zendesk', label);
          if (action === 'note') assert.deepEqual([last.kind, last.note], ['note', `note ${i}`], label);
          else
            assert.deepEqual(
              [last.kind, last.action, last.from_status, last.to_status],
              ['audit', action, from, to],
            );
        } else {
          assert.equal(after.timeline.length, before[i].timeline.length, `${label}: no-op writes nothing`);
        }
      }
      // One help_request.updated event per change, origin integration, with the new version.
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.payload.data.origin === 'integration');
      assert.equal(events.length, cases.filter((c) => c[3]).length);
      for (const event of events) {
        assert.equal(event.type, 'help_request.updated');
        assert.equal(event.payload.data.actor, 'Zendesk');
        const i = ids.indexOf(event.help_request_id);
        assert.equal(event.payload.data.version, before[i].version + 1);
        assert.equal(event.payload.data.status, cases[i][2]);
      }
    });

    test('note_required, and a note with resolve lands in the timeline, also on a resolved request', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'ack');
      const res = await sync(tenant, [
        { help_request_id: id, action: 'note' },
        { help_request_id: id, action: 'note', note: '   ' },
        { help_request_id: id, action: 'resolve', note: 'Fixed the enrolment record' },
        { help_request_id: id, action: 'resolve', note: 'Customer confirmed' },
        { help_request_id: id, action: 'resolve' },
      ]);
      assert.deepEqual(res.json().results, [
        failed(id, 'note_required'),
        failed(id, 'note_required'),
        { help_request_id: id, ok: true, status: 'resolved', changed: true },
        { help_request_id: id, ok: true, status: 'resolved', changed: true },
        { help_request_id: id, ok: true, status: 'resolved', changed: false },
      ]);
      const read = await readHelpRequest(ctx(), tenant, id);
      assert.equal(read.version, 4);
      assert.deepEqual(
        read.timeline
          .filter((t) => t.origin === 'integration')
          .map((t) => [t.kind, t.action, t.from_status, t.to_status, t.note, t.version]),
        [
          ['audit', 'resolve', 'ack', 'resolved', null, 3],
          ['note', 'resolve', null, null, 'Fixed the enrolment record', 3],
          ['audit', 'resolve', 'resolved', 'resolved', null, 4],
          ['note', 'resolve', null, null, 'Customer confirmed', 4],
        ],
      );
      const notes = read.timeline.filter((t) => t.kind === 'note');
      assert.ok(notes.every((n) => n.actor === 'Zendesk'));
      const events = (await readEvents(ctx(), tenant)).filter(
        (e) => e.help_request_id === id && e.payload.data.origin === 'integration',
      );
      assert.deepEqual(
        events.map((e) => [e.payload.data.version, e.payload.data.status]),
        [
          [3, 'resolved'],
          [4, 'resolved'],
        ],
      );
    });

    test('external_ref is stamped on any action, shown in the timeline, results and events', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'in_progress');
      const first = await sync(tenant, [
        { help_request_id: id, action: 'acknowledge', external_ref: 'ZD-1' },
      ]);
      // A no-op acknowledge that stamps a new external_ref is a change.
      assert.deepEqual(first.json().results, [
        { help_request_id: id, ok: true, status: 'in_progress', changed: true, external_ref: 'ZD-1' },
      ]);
      const retry = await sync(tenant, [
        { help_request_id: id, action: 'acknowledge', external_ref: 'ZD-1' },
      ]);
      assert.deepEqual(retry.json().results[0], {
        help_request_id: id,
        ok: true,
        status: 'in_progress',
        changed: false,
        external_ref: 'ZD-1',
      });
      const max = 'R'.repeat(200);
      const rows = await sync(tenant, [
        { help_request_id: id, action: 'reopen' },
        { help_request_id: id, action: 'resolve', external_ref: max },
        { help_request_id: id, action: 'note', note: 'x', external_ref: `${max}R` },
        { help_request_id: id, action: 'note', note: 'x', external_ref: 42 },
        { help_request_id: id, action: 'note', note: 'x', external_ref: '' },
      ]);
      assert.deepEqual(rows.json().results, [
        { help_request_id: id, ok: true, status: 'in_progress', changed: false, external_ref: 'ZD-1' },
        { help_request_id: id, ok: true, status: 'resolved', changed: true, external_ref: max },
        failed(id, 'bad_external_ref'),
        failed(id, 'bad_external_ref'),
        failed(id, 'bad_external_ref'),
      ]);
      const read = await readHelpRequest(ctx(), tenant, id);
      assert.equal(read.external_ref, max);
      assert.deepEqual(
        read.timeline.filter((t) => t.origin === 'integration').map((t) => [t.action, t.external_ref]),
        [
          ['acknowledge', 'ZD-1'],
          ['resolve', max],
        ],
      );
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.help_request_id === id);
      const integration = events.filter((e) => e.payload.data.origin === 'integration');
      assert.deepEqual(
        integration.map((e) => e.payload.data.external_ref),
        ['ZD-1', max],
      );
      // Echoed in later events of the request, staff changes included.
      await staff(ctx(), tenant, id, 'notes', { note: 'seen' });
      const later = (await readEvents(ctx(), tenant, events.at(-1)!.seq)).filter(
        (e) => e.help_request_id === id,
      );
      assert.equal(later[0].payload.data.external_ref, max);
      assert.equal(later[0].payload.data.origin, 'platform');
    });

    test('bad rows, unknown and foreign requests fail on their own; results in order', async () => {
      const tenant = await seedHelpdesk(ctx());
      const other = await seedHelpdesk(ctx());
      const mine = await requestIn(ctx(), tenant, 'new');
      const theirs = await requestIn(ctx(), other, 'new');
      const unknown = randomUUID();
      const res = await sync(tenant, [
        { help_request_id: mine, action: 'close' },
        { help_request_id: 'ZD-4412', action: 'acknowledge' },
        { action: 'acknowledge' },
        null,
        'acknowledge',
        [mine],
        { help_request_id: unknown, action: 'acknowledge' },
        { help_request_id: theirs, action: 'acknowledge' },
        { help_request_id: mine.toUpperCase(), action: 'acknowledge', priority: 'low', assigned_to: 'Eve' },
        { help_request_id: mine, action: 42 },
        { help_request_id: mine, action: 'note', note: 7 },
        { help_request_id: mine, action: 'note', note: 'n', actor: '' },
        { help_request_id: mine, action: 'resolve', observed_at: 'yesterday' },
        { help_request_id: mine, action: 'resolve', observed_at: '2026-02-30T00:00:00Z' },
      ]);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().results, [
        failed(mine, 'bad_action'),
        failed('ZD-4412', 'bad_help_request_id'),
        failed('', 'bad_help_request_id'),
        failed('', 'bad_help_request_id'),
        failed('', 'bad_help_request_id'),
        failed('', 'bad_help_request_id'),
        failed(unknown, 'not_found'),
        failed(theirs, 'not_found'),
        { help_request_id: mine, ok: true, status: 'ack', changed: true },
        failed(mine, 'bad_action'),
        failed(mine, 'bad_note'),
        failed(mine, 'bad_actor'),
        failed(mine, 'bad_observed_at'),
        failed(mine, 'bad_observed_at'),
      ]);
      // The foreign request was not touched; priority and assignment never change.
      assert.equal((await readHelpRequest(ctx(), other, theirs)).status, 'new');
      const read = await readHelpRequest(ctx(), tenant, mine);
      assert.equal(read.priority, 'normal');
      assert.equal(read.assigned_to, null);
    });

    test('NUL and lone surrogates are row errors (never update_failed); request-level actor is a 400', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const res = await sync(tenant, [
        { help_request_id: id, action: 'note', note: 'a\u0000b' },
        { help_request_id: id, action: 'resolve', note: 'half \ud800 pair' },
        { help_request_id: id, action: 'acknowledge', external_ref: 'ZD-\u0000' },
        { help_request_id: id, action: 'acknowledge', external_ref: '\udc00' },
        { help_request_id: id, action: 'acknowledge', actor: 'Kim\u0000' },
        { help_request_id: id, action: 'acknowledge', actor: 'Kim \ud83d' },
        { help_request_id: id, action: 'note', note: 'fine \u{1F600}', external_ref: 'ZD-\u{1F600}' },
      ]);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        res.json().results.map((r: { ok: boolean; error?: string }) => r.error ?? r.ok),
        ['bad_note', 'bad_note', 'bad_external_ref', 'bad_external_ref', 'bad_actor', 'bad_actor', true],
      );
      for (const actor of ['Zendesk\u0000', 'Zendesk \udfff']) {
        const bad = await sync(tenant, [{ help_request_id: id, action: 'acknowledge' }], { actor });
        assert.equal(bad.statusCode, 400, bad.body);
        assert.deepEqual([bad.json().error, bad.json().field], ['invalid_field', 'actor']);
      }
      const read = await readHelpRequest(ctx(), tenant, id);
      assert.equal(read.status, 'new');
      assert.equal(read.external_ref, 'ZD-\u{1F600}');
    });

    test('naming another institution than the secret was issued for: every row not_found', async () => {
      const tenant = await seedHelpdesk(ctx());
      const other = await seedHelpdesk(ctx());
      const theirs = await requestIn(ctx(), other, 'new');
      const mine = await requestIn(ctx(), tenant, 'new');
      for (const institution of [other.slug, 'no-such-institution']) {
        const res = await helpSync(ctx(), tenant.syncSecret, {
          institution,
          updates: [
            { help_request_id: theirs, action: 'acknowledge' },
            { help_request_id: mine, action: 'acknowledge' },
            { help_request_id: 'x', action: 'nope' },
          ],
        });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json().results, [
          failed(theirs, 'not_found'),
          failed(mine, 'not_found'),
          failed('x', 'not_found'),
        ]);
      }
      assert.equal((await readHelpRequest(ctx(), other, theirs)).status, 'new');
      assert.equal((await readHelpRequest(ctx(), tenant, mine)).status, 'new');
    });

    test('per-request and per-row actor in the audit trail, timeline and events; default actor', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      await sync(tenant, [
        { help_request_id: id, action: 'acknowledge' },
        { help_request_id: id, action: 'note', note: 'from Kim', actor: '  Kim (Service Desk)  ' },
      ]);
      await helpSync(ctx(), tenant.syncSecret, {
        institution: tenant.slug,
        updates: [{ help_request_id: id, action: 'resolve' }],
      });
      const read = await readHelpRequest(ctx(), tenant, id);
      assert.deepEqual(
        read.timeline
          .filter((t) => t.origin === 'integration' && t.kind === 'audit')
          .map((t) => [t.action, t.actor]),
        [
          ['acknowledge', 'Zendesk'],
          ['note', 'Kim (Service Desk)'],
          ['resolve', 'help-desk sync'],
        ],
      );
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.payload.data.origin === 'integration');
      assert.deepEqual(
        events.map((e) => [e.payload.data.actor, e.payload.data.version]),
        [
          ['Zendesk', 2],
          ['Kim (Service Desk)', 3],
          ['help-desk sync', 4],
        ],
      );
      const blank = await sync(tenant, [], { actor: '   ' });
      assert.equal(blank.statusCode, 400);
      assert.equal(blank.json().field, 'actor');
    });

    test('several rows for one request apply in order', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const res = await sync(tenant, [
        { help_request_id: id, action: 'acknowledge' },
        { help_request_id: id, action: 'resolve', external_ref: 'A' },
        { help_request_id: id, action: 'reopen' },
        { help_request_id: id, action: 'acknowledge' },
        { help_request_id: id, action: 'resolve', external_ref: 'B' },
      ]);
      assert.deepEqual(
        res.json().results.map((r: { status: string; changed: boolean }) => [r.status, r.changed]),
        [
          ['ack', true],
          ['resolved', true],
          ['in_progress', true],
          ['in_progress', false],
          ['resolved', true],
        ],
      );
      const read = await readHelpRequest(ctx(), tenant, id);
      assert.equal(read.version, 5);
      assert.equal(read.external_ref, 'B');
      const versions = (await readEvents(ctx(), tenant))
        .filter((e) => e.help_request_id === id && e.type === 'help_request.updated')
        .map((e) => [e.payload.data.version, e.payload.data.status]);
      assert.deepEqual(versions, [
        [2, 'ack'],
        [3, 'resolved'],
        [4, 'in_progress'],
        [5, 'resolved'],
      ]);
    });

    test('413 over 100 updates with batch_too_large; 100 are accepted; envelope errors are 400', async () => {
      const tenant = await seedHelpdesk(ctx());
      const row = { help_request_id: randomUUID(), action: 'acknowledge' };
      const over = await sync(
        tenant,
        Array.from({ length: 101 }, () => row),
      );
      assert.equal(over.statusCode, 413);
      assert.deepEqual(
        { error: over.json().error, max: over.json().max },
        { error: 'batch_too_large', max: 100 },
      );
      const hundred = await sync(
        tenant,
        Array.from({ length: 100 }, () => row),
      );
      assert.equal(hundred.statusCode, 200);
      assert.equal(hundred.json().results.length, 100);
      const noUpdates = await helpSync(ctx(), tenant.syncSecret, { institution: tenant.slug });
      assert.equal(noUpdates.statusCode, 400);
      assert.deepEqual([noUpdates.json().error, noUpdates.json().field], ['missing_field', 'updates']);
      const notArray = await helpSync(ctx(), tenant.syncSecret, { institution: tenant.slug, updates: {} });
      assert.equal(notArray.statusCode, 400);
      const malformed = await ctx().request({
        method: 'POST',
        url: '/api/integrations/help-sync',
        token: tenant.syncSecret,
        headers: { 'content-type': 'application/json' },
        body: undefined,
      });
      assert.equal(malformed.statusCode, 400);
    });

    test('unknown top-level fields are 400 unknown_field with a suggestion; nothing is applied', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const updates = [{ help_request_id: id, action: 'acknowledge' }];
      const cases: [body: Record<string, unknown>, field: string, suggestion?: string][] = [
        [{ institution: tenant.slug, update: updates }, 'update', 'updates'],
        [{ institution: tenant.slug, updates, Actor: 'Zendesk' }, 'Actor', 'actor'],
        [{ institution: tenant.slug, updates, dry_run: true }, 'dry_run'],
        [{ institution: tenant.slug, updates, priority: 'low' }, 'priority'],
      ];
      for (const [body, field, suggestion] of cases) {
        const res = await helpSync(ctx(), tenant.syncSecret, body);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(
          [res.json().error, res.json().field, res.json().suggestion],
          ['unknown_field', field, suggestion],
        );
        assert.match(res.json().detail, suggestion ? /did you mean/ : /institution, actor, updates/);
      }
      assert.equal((await readHelpRequest(ctx(), tenant, id)).status, 'new');
      // The secret is checked first.
      const stranger = await helpSync(ctx(), 'ssp_sync_wrong', {
        institution: tenant.slug,
        updates,
        dryRun: 1,
      });
      assert.deepEqual([stranger.statusCode, stranger.json().error], [401, 'sync_secret_wrong']);
    });

    test('failed rows carry a message beside the code; bad_action lists the valid actions', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const res = await sync(tenant, [
        { help_request_id: id, action: 'close' },
        { help_request_id: id, action: 'note' },
        { help_request_id: 'ZD-1', action: 'note', note: 'x' },
      ]);
      const [badAction, noteRequired, badId] = res.json().results;
      assert.equal(badAction.error, 'bad_action');
      assert.equal(badAction.message, 'action must be one of acknowledge, note, resolve, reopen, reply');
      assert.equal(noteRequired.error, 'note_required');
      assert.match(noteRequired.message, /note/);
      assert.equal(badId.error, 'bad_help_request_id');
      assert.match(badId.message, /UUID/);
    });

    test('415 unsupported_media_type for a body that is not sent as application/json', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const payload = JSON.stringify({
        institution: tenant.slug,
        updates: [{ help_request_id: id, action: 'acknowledge' }],
      });
      for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
        const res = await ctx().app.inject({
          method: 'POST',
          url: '/api/integrations/help-sync',
          headers: { 'content-type': type, authorization: `Bearer ${tenant.syncSecret}` },
          payload,
        });
        assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
        assert.equal(res.json().error, 'unsupported_media_type');
      }
      assert.equal((await readHelpRequest(ctx(), tenant, id)).status, 'new');
      const json = await ctx().app.inject({
        method: 'POST',
        url: '/api/integrations/help-sync',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          authorization: `Bearer ${tenant.syncSecret}`,
        },
        payload,
      });
      assert.equal(json.statusCode, 200, json.body);
      assert.equal(json.json().results[0].status, 'ack');
    });

    test('console precedence: a staff change after observed_at wins', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const viewTaken = new Date(Date.now() - 60_000).toISOString();
      await staff(ctx(), tenant, id, 'status', { status: 'in_progress' });
      const stale = await sync(tenant, [
        {
          help_request_id: id,
          action: 'resolve',
          observed_at: viewTaken,
          note: 'stale',
          external_ref: 'ZD-9',
        },
        { help_request_id: id, action: 'note', note: 'notes are never superseded', observed_at: viewTaken },
      ]);
      // The state change is superseded, but external_ref is stamped on any action (spec 4.3).
      assert.deepEqual(stale.json().results, [
        {
          help_request_id: id,
          ok: true,
          status: 'in_progress',
          changed: true,
          external_ref: 'ZD-9',
          superseded: true,
        },
        { help_request_id: id, ok: true, status: 'in_progress', changed: true, external_ref: 'ZD-9' },
      ]);
      let read = await readHelpRequest(ctx(), tenant, id);
      assert.equal(read.status, 'in_progress');
      assert.equal(read.external_ref, 'ZD-9');
      assert.deepEqual(
        read.timeline
          .filter((t) => t.origin === 'integration')
          .map((t) => [t.kind, t.action, t.note, t.external_ref, t.version]),
        [
          ['audit', 'resolve_superseded', null, 'ZD-9', 3],
          ['note', 'resolve', 'stale', 'ZD-9', 3],
          ['audit', 'note', null, null, 4],
          ['note', 'note', 'notes are never superseded', null, 4],
        ],
      );
      const stamped = (await readEvents(ctx(), tenant)).filter(
        (e) => e.help_request_id === id && e.payload.data.origin === 'integration',
      );
      assert.deepEqual(
        stamped.map((e) => [e.payload.data.version, e.payload.data.status, e.payload.data.external_ref]),
        [
          [3, 'in_progress', 'ZD-9'],
          [4, 'in_progress', 'ZD-9'],
        ],
      );
      // Re-sending the same superseded row changes nothing and writes no version.
      const again = await sync(tenant, [
        { help_request_id: id, action: 'resolve', observed_at: viewTaken, external_ref: 'ZD-9' },
      ]);
      assert.deepEqual(again.json().results[0], {
        help_request_id: id,
        ok: true,
        status: 'in_progress',
        changed: false,
        external_ref: 'ZD-9',
        superseded: true,
      });
      assert.equal((await readHelpRequest(ctx(), tenant, id)).version, 4);
      // A view taken after the staff change applies; so does a row without observed_at.
      const fresh = await sync(tenant, [
        { help_request_id: id, action: 'resolve', observed_at: new Date().toISOString() },
      ]);
      assert.deepEqual(fresh.json().results[0], {
        help_request_id: id,
        ok: true,
        status: 'resolved',
        changed: true,
        external_ref: 'ZD-9',
      });
      const noView = await sync(tenant, [{ help_request_id: id, action: 'reopen' }]);
      assert.equal(noView.json().results[0].status, 'in_progress');
      read = await readHelpRequest(ctx(), tenant, id);
      assert.equal(read.status, 'in_progress');
    });

    test('failing rows get update_failed while the others are written', async () => {
      const tenant = await seedHelpdesk(ctx());
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await requestIn(ctx(), tenant, 'new'));
      const failing = [ids[1], ids[3]];
      // A real database failure for two requests only: a trigger that raises on their update.
      const fn = `fail_${ids[1].replaceAll('-', '').slice(0, 12)}`;
      await ctx().db.exec(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id IN ('${failing[0]}', '${failing[1]}') THEN RAISE EXCEPTION 'injected failure'; END IF;
      RETURN NEW; END $$;
      CREATE TRIGGER ${fn} BEFORE UPDATE ON help_requests FOR EACH ROW EXECUTE FUNCTION ${fn}();`);
      try {
        const res = await sync(
          tenant,
          ids.flatMap((id) => [
            { help_request_id: id, action: 'acknowledge' },
            { help_request_id: id, action: 'note', note: 'n' },
          ]),
        );
        assert.equal(res.statusCode, 200);
        assert.deepEqual(
          res.json().results.map((r: { ok: boolean; error?: string }) => r.error ?? r.ok),
          [
            true,
            true,
            'update_failed',
            'update_failed',
            true,
            true,
            'update_failed',
            'update_failed',
            true,
            true,
          ],
        );
      } finally {
        await ctx().db.exec(`DROP TRIGGER ${fn} ON help_requests; DROP FUNCTION ${fn}();`);
      }
      const reads = await Promise.all(ids.map((id) => readHelpRequest(ctx(), tenant, id)));
      assert.deepEqual(
        reads.map((r) => [r.status, r.version, r.timeline.length]),
        ids.map((id) => (failing.includes(id) ? ['new', 1, 1] : ['ack', 3, 4])),
      );
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.payload.data.origin === 'integration');
      assert.deepEqual(
        events.map((e) => e.help_request_id).sort(),
        ids
          .filter((id) => !failing.includes(id))
          .flatMap((id) => [id, id])
          .sort(),
      );
      // The failure was transient: a retry succeeds.
      const retry = await sync(tenant, [{ help_request_id: ids[1], action: 'acknowledge' }]);
      assert.equal(retry.json().results[0].status, 'ack');
    });

    test('a failing row does not fail the other rows of the same request', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const other = await requestIn(ctx(), tenant, 'new');
      // A real database failure for one row only: a trigger that raises on one note's timeline entry.
      const fn = `fail_${id.replaceAll('-', '').slice(0, 12)}`;
      await ctx().db.exec(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.note = 'poison ${id}' THEN RAISE EXCEPTION 'injected failure'; END IF;
      RETURN NEW; END $$;
      CREATE TRIGGER ${fn} BEFORE INSERT ON help_request_timeline FOR EACH ROW EXECUTE FUNCTION ${fn}();`);
      let res: Awaited<ReturnType<typeof sync>>;
      try {
        res = await sync(tenant, [
          { help_request_id: id, action: 'acknowledge', external_ref: 'ZD-1' },
          { help_request_id: other, action: 'acknowledge' },
          { help_request_id: id, action: 'note', note: `poison ${id}`, external_ref: 'ZD-2' },
          { help_request_id: id, action: 'note', note: 'fine' },
          { help_request_id: id, action: 'resolve' },
        ]);
      } finally {
        await ctx().db.exec(`DROP TRIGGER ${fn} ON help_request_timeline; DROP FUNCTION ${fn}();`);
      }
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().results, [
        { help_request_id: id, ok: true, status: 'ack', changed: true, external_ref: 'ZD-1' },
        { help_request_id: other, ok: true, status: 'ack', changed: true },
        failed(id, 'update_failed'),
        { help_request_id: id, ok: true, status: 'ack', changed: true, external_ref: 'ZD-1' },
        { help_request_id: id, ok: true, status: 'resolved', changed: true, external_ref: 'ZD-1' },
      ]);
      const read = await readHelpRequest(ctx(), tenant, id);
      assert.deepEqual([read.status, read.version, read.external_ref], ['resolved', 4, 'ZD-1']);
      assert.deepEqual(
        read.timeline
          .filter((t) => t.origin === 'integration')
          .map((t) => [t.kind, t.action, t.note, t.version]),
        [
          ['audit', 'acknowledge', null, 2],
          ['audit', 'note', null, 3],
          ['note', 'note', 'fine', 3],
          ['audit', 'resolve', null, 4],
        ],
      );
      const events = (await readEvents(ctx(), tenant)).filter(
        (e) => e.help_request_id === id && e.payload.data.origin === 'integration',
      );
      assert.deepEqual(
        events.map((e) => e.payload.data.version),
        [2, 3, 4],
      );
      assert.equal((await readHelpRequest(ctx(), tenant, other)).status, 'ack');
    });

    test('concurrent sync and staff changes on one request never lose a write', async () => {
      const tenant = await seedHelpdesk(ctx());
      const id = await requestIn(ctx(), tenant, 'new');
      const rounds = 8;
      const calls: Promise<{ statusCode: number }>[] = [];
      for (let i = 0; i < rounds; i++) {
        calls.push(sync(tenant, [{ help_request_id: id, action: 'note', note: `sync ${i}` }]));
        calls.push(staff(ctx(), tenant, id, 'notes', { note: `staff ${i}` }));
        calls.push(sync(tenant, [{ help_request_id: id, action: i % 2 ? 'resolve' : 'reopen' }]));
      }
      const responses = await Promise.all(calls);
      assert.ok(responses.every((r) => r.statusCode === 200));
      const read = await readHelpRequest(ctx(), tenant, id);
      const notes = read.timeline.filter((t) => t.kind === 'note');
      assert.equal(notes.length, rounds * 2);
      // Every change got its own version: 1 + number of changes, no gaps, no duplicates.
      const changeVersions = read.timeline.filter((t) => t.kind === 'audit' || t.action === 'note');
      const versions = [...new Set(read.timeline.map((t) => t.version))].sort((a, b) => a - b);
      assert.equal(read.version, versions.at(-1));
      assert.deepEqual(
        versions,
        Array.from({ length: read.version }, (_, i) => i + 1),
      );
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.help_request_id === id);
      const eventVersions = events.map((e) => e.payload.data.version as number);
      assert.deepEqual(
        eventVersions,
        [...eventVersions].sort((a, b) => a - b),
        'events in version order',
      );
      assert.equal(new Set(eventVersions).size, eventVersions.length);
      assert.equal(events.at(-1)!.payload.data.version, read.version);
      assert.ok(changeVersions.length >= rounds * 2);
    });
  });

  describe('priority, assignment and concurrency', () => {
    const sync = (tenant: HelpdeskTenant, updates: unknown[]) =>
      helpSync(ctx(), tenant.syncSecret, { institution: tenant.slug, updates });

    test('never changes priority or assignment, crisis included', async () => {
      const tenant = await seedHelpdesk(ctx());
      const crisis = await createHelpRequest(ctx(), tenant, { priority: 'crisis' });
      const sam = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Sam' });
      await staff(ctx(), tenant, crisis.id, 'assignment', { assignee_id: sam.id });
      const res = await sync(tenant, [
        {
          help_request_id: crisis.id,
          action: 'resolve',
          priority: 'low',
          assigned_to: null,
          assignee: 'Eve',
        },
        { help_request_id: crisis.id, action: 'reopen', priority: 'normal' },
      ]);
      assert.deepEqual(
        res.json().results.map((r: { ok: boolean }) => r.ok),
        [true, true],
      );
      const read = await readHelpRequest(ctx(), tenant, crisis.id);
      assert.deepEqual([read.priority, read.assigned_to, read.status], ['crisis', 'Sam', 'in_progress']);
      assert.equal(read.assigned_to_id, sam.id);
      // Sync events carry the assignment as it stands, unchanged.
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.payload.data.origin === 'integration');
      assert.ok(events.every((e) => e.payload.data.priority === 'crisis'));
      assert.ok(
        events.every((e) => e.payload.data.assigned_to === 'Sam' && e.payload.data.assigned_to_id === sam.id),
      );
    });

    test('concurrent batches locking overlapping requests in opposite orders neither deadlock nor fail', async () => {
      const tenant = await seedHelpdesk(ctx());
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await requestIn(ctx(), tenant, 'new'));
      const batch = (order: string[], n: number) =>
        sync(
          tenant,
          order.map((id) => ({ help_request_id: id, action: 'note', note: `batch ${n}` })),
        );
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, n) => batch(n % 2 ? ids : [...ids].reverse(), n)),
      );
      for (const res of responses) {
        assert.equal(res.statusCode, 200);
        assert.ok(res.json().results.every((r: { ok: boolean }) => r.ok));
      }
      for (const id of ids) {
        const read = await readHelpRequest(ctx(), tenant, id);
        assert.equal(read.version, 11);
        assert.equal(read.timeline.filter((t) => t.kind === 'note').length, 10);
      }
    });
  });

  describe('documentation', () => {
    test('the OpenAPI document describes the endpoint, its rows, results and errors', async () => {
      const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json();
      const op = doc.paths['/api/integrations/help-sync'].post;
      const body = op.requestBody.content['application/json'].schema;
      assert.ok(op.requestBody.content['application/json'].example.updates.length > 0);
      assert.ok(op.responses['200'].content['application/json'].example.results.length > 0);
      // An element of updates is a documented row, or anything else (answered as that row's error).
      const [row, other] = body.properties.updates.items.anyOf;
      assert.ok(row.properties.observed_at.description.includes('superseded'));
      assert.deepEqual(Object.keys(other), ['description']);
      assert.equal(body.additionalProperties, false);
      const result = op.responses['200'].content['application/json'].schema.properties.results.items;
      assert.ok(result.properties.message.description.includes('acknowledge, note, resolve, reopen'));
      assert.ok(op.responses['200'].content['application/json'].schema.properties.results);
      for (const status of ['401', '413', '429']) assert.ok(op.responses[status], status);
      for (const code of [
        'sync_secret_missing',
        'sync_secret_wrong',
        'sync_secret_revoked',
        'sync_secret_never_issued',
      ]) {
        assert.ok(op.description.includes(code), code);
      }
      assert.ok(doc.paths['/admin/v1/institutions/{slug}/events'].get);
    });
  });
});

describeEachDatabase(
  'help-sync: rate limit',
  (ctx) => {
    test('answers 429 with Retry-After over HELP_SYNC_RATE_LIMIT_PER_MINUTE', async () => {
      const tenant = await seedHelpdesk(ctx());
      const body = { institution: tenant.slug, updates: [] };
      assert.equal((await helpSync(ctx(), tenant.syncSecret, body)).statusCode, 200);
      assert.equal((await helpSync(ctx(), tenant.syncSecret, body)).statusCode, 200);
      const limited = await helpSync(ctx(), tenant.syncSecret, body);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
    });
  },
  { config: { helpSyncRateLimitPerMinute: 2 } },
);
