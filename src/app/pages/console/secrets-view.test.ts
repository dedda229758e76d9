import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secretConfirmView, secretShownView, secretsView } from './secrets-view.ts';

test('the secrets page shows the help-sync secret only when given', () => {
  const roster = { state: 'active' as const, issued_at: new Date('2026-01-01T00:00:00Z') };
  assert.equal(secretsView(roster, undefined).sync, undefined);
  assert.deepEqual(secretsView(roster, { state: 'never_issued' }).sync, { state: 'never_issued' });
  assert.equal(secretsView(roster, undefined).when(roster.issued_at), '2026-01-01 00:00 UTC');
});

test('a secret is shown once with the way back; each confirmation posts to its action', () => {
  assert.deepEqual(secretShownView('roster secret', 'ssp_roster_x', '/console/x/secrets'), {
    title: 'New roster secret',
    which: 'roster secret',
    secret: 'ssp_roster_x',
    back: '/console/x/secrets',
  });
  const revoke = secretConfirmView('roster/revoke', '/console/x/secrets');
  assert.equal(revoke.title, 'Revoke the roster secret?');
  assert.equal(revoke.action, '/console/x/secrets/roster/revoke');
  assert.equal(revoke.back, '/console/x/secrets');
  assert.equal(secretConfirmView('help-sync/rotate', '/p').action, '/p/help-sync/rotate');
});
