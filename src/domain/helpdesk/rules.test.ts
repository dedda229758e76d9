import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { stateTable } from '../../../test/helpers/state-table.ts';
import { actingStaff, applyRow, type SyncState, staffStatusChange, statuses, validateRow } from './rules.ts';

const id = '5f0c6a8e-2b1d-4c3e-9a7f-1d2e3f4a5b6c';
const now = new Date('2026-03-01T10:00:00Z');
const state = (status: SyncState['status'], extra: Partial<SyncState> = {}): SyncState => ({
  status,
  externalRef: null,
  resolvedAt: status === 'resolved' ? new Date('2026-02-01T00:00:00Z') : null,
  version: 3,
  staffStatusChangedAt: null,
  ...extra,
});
const valid = (raw: Record<string, unknown>) => {
  const v = validateRow({ help_request_id: id, ...raw }, 'sync');
  assert.ok(v.ok, JSON.stringify(v));
  return v.row;
};

test('validateRow reports the first problem in a fixed order', () => {
  assert.deepEqual(validateRow(null, 'a'), { ok: false, helpRequestId: '', error: 'bad_help_request_id' });
  assert.deepEqual(validateRow({ help_request_id: 'x', action: 'nope' }, 'a'), {
    ok: false,
    helpRequestId: 'x',
    error: 'bad_help_request_id',
  });
  const err = (raw: Record<string, unknown>) => {
    const v = validateRow({ help_request_id: id, ...raw }, 'a');
    return v.ok ? 'ok' : v.error;
  };
  assert.equal(err({ action: 'Acknowledge' }), 'bad_action');
  assert.equal(err({ action: 'note' }), 'note_required');
  assert.equal(err({ action: 'note', note: ' \n' }), 'note_required');
  assert.equal(err({ action: 'note', note: ['x'] }), 'bad_note');
  assert.equal(err({ action: 'resolve', external_ref: 'x'.repeat(201) }), 'bad_external_ref');
  assert.equal(err({ action: 'resolve', external_ref: 'x'.repeat(200) }), 'ok');
  assert.equal(err({ action: 'resolve', actor: ' ' }), 'bad_actor');
  assert.equal(err({ action: 'resolve', observed_at: '2026-13-01T00:00:00Z' }), 'bad_observed_at');
  assert.equal(err({ action: 'resolve', observed_at: '2026-01-01' }), 'bad_observed_at');
  assert.equal(err({ action: 'resolve', observed_at: '2026-01-01T00:00:00+02:00' }), 'ok');
  // Impossible dates and times are refused, not rolled over into the next month or day.
  for (const impossible of [
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T10:00:00Z',
    '2026-00-10T10:00:00Z',
    '2026-01-00T10:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T10:00:00+24:00',
    '2026-01-01T10:00:00+01:60',
  ]) {
    assert.equal(err({ action: 'resolve', observed_at: impossible }), 'bad_observed_at', impossible);
  }
  for (const possible of ['2024-02-29T12:00:00Z', '2026-12-31T23:59:59.999Z', '2026-01-01T00:00-0130']) {
    assert.equal(err({ action: 'resolve', observed_at: possible }), 'ok', possible);
  }
  assert.equal(
    valid({ action: 'resolve', observed_at: '2026-01-01T00:00:00-01:30' }).observedAt?.toISOString(),
    '2026-01-01T01:30:00.000Z',
  );
  assert.equal(err({ action: 'note', note: 'a\u0000' }), 'bad_note');
  assert.equal(err({ action: 'resolve', note: '\ud800' }), 'bad_note');
  assert.equal(err({ action: 'resolve', external_ref: '\u0000' }), 'bad_external_ref');
  assert.equal(err({ action: 'resolve', external_ref: 'x\udc00' }), 'bad_external_ref');
  assert.equal(err({ action: 'resolve', actor: 'K\u0000' }), 'bad_actor');
  assert.equal(err({ action: 'resolve', actor: '\ud83d' }), 'bad_actor');
  assert.equal(err({ action: 'resolve', actor: '\u{1F600}', note: '\u{1F600}' }), 'ok');
  assert.equal(valid({ action: 'note', note: 'n', actor: ' Kim ' }).actor, 'Kim');
  assert.equal(valid({ action: 'acknowledge' }).actor, 'sync');
});

test('the state table of section 3', () => {
  const table = stateTable;
  for (const [from, action, to, changed] of table) {
    const out = applyRow(state(from), valid({ action }), now);
    assert.equal(out.state.status, to, `${from} ${action}`);
    assert.equal(out.changed, changed, `${from} ${action}`);
    assert.equal(out.state.version, changed ? 4 : 3);
    if (to === 'resolved' && from !== 'resolved') assert.equal(out.state.resolvedAt, now);
    if (to === 'in_progress' && from === 'resolved') assert.equal(out.state.resolvedAt, null);
  }
  for (const from of statuses) {
    const out = applyRow(state(from), valid({ action: 'note', note: 'x' }), now);
    assert.deepEqual([out.changed, out.state.status, out.note], [true, from, 'x']);
  }
  // resolve's note always lands in the timeline, also when the request is already resolved;
  // a note written is a change (as for note rows), the status and resolved time stay.
  assert.equal(applyRow(state('ack'), valid({ action: 'resolve', note: 'done' }), now).note, 'done');
  const again = applyRow(state('resolved'), valid({ action: 'resolve', note: 'done' }), now);
  assert.deepEqual(
    [again.changed, again.statusChanged, again.note, again.state.status, again.state.version],
    [true, false, 'done', 'resolved', 4],
  );
  assert.deepEqual(again.state.resolvedAt, state('resolved').resolvedAt);
  assert.equal(applyRow(state('resolved'), valid({ action: 'resolve' }), now).changed, false);
});

test('console precedence: a staff status change after observed_at supersedes state actions only', () => {
  const staffAt = new Date('2026-03-01T09:00:00Z');
  const s = state('in_progress', { staffStatusChangedAt: staffAt });
  const before = '2026-03-01T08:59:59Z';
  const out = applyRow(s, valid({ action: 'resolve', observed_at: before }), now);
  assert.deepEqual([out.superseded, out.changed, out.state], [true, false, s]);
  assert.equal(applyRow(s, valid({ action: 'note', note: 'n', observed_at: before }), now).superseded, false);
  assert.equal(
    applyRow(s, valid({ action: 'resolve', observed_at: '2026-03-01T09:00:00Z' }), now).changed,
    true,
  );
  assert.equal(applyRow(s, valid({ action: 'resolve' }), now).changed, true);
  // external_ref is stamped on any action, a superseded one included (status untouched).
  const stamped = applyRow(s, valid({ action: 'resolve', observed_at: before, external_ref: 'ZD-9' }), now);
  assert.deepEqual(
    [stamped.superseded, stamped.changed, stamped.statusChanged, stamped.note],
    [true, true, false, undefined],
  );
  assert.deepEqual(stamped.state, { ...s, externalRef: 'ZD-9', version: s.version + 1 });
  // A superseded resolve's note still lands (a note is not a state view).
  const noted = applyRow(s, valid({ action: 'resolve', observed_at: before, note: 'seen' }), now);
  assert.deepEqual(
    [noted.superseded, noted.changed, noted.note, noted.state.status, noted.state.version],
    [true, true, 'seen', 'in_progress', s.version + 1],
  );
  const same = applyRow(
    { ...s, externalRef: 'ZD-9' },
    valid({ action: 'resolve', observed_at: before, external_ref: 'ZD-9' }),
    now,
  );
  assert.deepEqual([same.superseded, same.changed, same.state.version], [true, false, s.version]);
});

test('property: status is always one of the four; version grows by one exactly when changed', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...statuses),
      fc.array(
        fc.record({
          action: fc.constantFrom('acknowledge', 'note', 'resolve', 'reopen'),
          note: fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: undefined }),
          external_ref: fc.option(fc.constantFrom('A', 'B'), { nil: undefined }),
        }),
        { maxLength: 10 },
      ),
      (start, rows) => {
        let current = state(start);
        for (const raw of rows) {
          const v = validateRow({ help_request_id: id, ...raw }, 'sync');
          if (!v.ok) continue;
          const out = applyRow(current, v.row, now);
          assert.ok(statuses.includes(out.state.status));
          assert.equal(out.state.version, current.version + (out.changed ? 1 : 0));
          assert.equal(out.state.status === 'resolved', out.state.resolvedAt !== null);
          current = out.state;
        }
      },
    ),
    { numRuns: 50 },
  );
});

test('staff status change stamps the staff time and follows the resolved time', () => {
  assert.equal(staffStatusChange(state('ack'), 'ack', now), undefined);
  const resolved = staffStatusChange(state('ack'), 'resolved', now)!;
  assert.deepEqual([resolved.resolvedAt, resolved.staffStatusChangedAt, resolved.version], [now, now, 4]);
  assert.equal(staffStatusChange(state('resolved'), 'new', now)!.resolvedAt, null);
});

test('a future observed_at counts as now: it never outranks a staff change', () => {
  const s = { ...state('ack'), staffStatusChangedAt: new Date(now.getTime() - 1000) };
  const fromTheFuture = applyRow(s, valid({ action: 'resolve', observed_at: '2999-01-01T00:00:00Z' }), now);
  assert.equal(fromTheFuture.changed, true, 'a view as of now is newer than a change a second ago');
  const sameInstant = { ...state('ack'), staffStatusChangedAt: new Date(now.getTime() + 1000) };
  const capped = applyRow(
    sameInstant,
    valid({ action: 'resolve', observed_at: '2999-01-01T00:00:00Z' }),
    now,
  );
  assert.equal(capped.superseded, true);
});

test('a staff change is attributed to the session person, else to the staff name a token caller sends', () => {
  const person = { actor: 'Robin Counsellor', sessionId: '7d1e2f3a-0000-4000-8000-000000000001' };
  assert.equal(actingStaff(person, undefined), 'Robin Counsellor');
  assert.equal(actingStaff(person, 'Somebody Else'), 'Robin Counsellor');
  const token = { actor: 'operator' };
  assert.equal(actingStaff(token, 'Dana Staff'), 'Dana Staff');
  assert.throws(
    () => actingStaff(token, undefined),
    (error: { code?: string; extra?: { field?: string } }) =>
      error.code === 'missing_field' && error.extra?.field === 'staff',
  );
});
