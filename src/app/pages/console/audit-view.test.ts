import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adminActionWords, auditFilter, auditQuery, helpRequestEntryWords } from './audit-view.ts';

const ada = {
  id: '0b6f4a1e-3d6a-4b8e-9a53-2f1d7c2b9e10',
  name: 'Ada',
  email: 'ada@example.edu',
  removed: false,
};

test('the URL filters: admin audit by default; every refused filter a sentence', () => {
  assert.deepEqual(auditQuery({}), { ok: true, value: { kind: 'admin' } });
  const refused = auditQuery({ kind: 'everything', from: '2026-02-30x', person: 'Ada' });
  assert.equal(refused.ok, false);
  if (!refused.ok) {
    assert.match(refused.problem, /Choose the admin audit or the help-request audit/);
    assert.match(refused.problem, /From must be a date/);
    assert.match(refused.problem, /Choose a person from the list/);
  }
  const backwards = auditQuery({ from: '2026-05-02', to: '2026-05-01' });
  assert.equal(backwards.ok, false);
});

test("the domain filter: a person of the institution or the operator; dates are the institution's days", () => {
  const filter = auditFilter(
    { kind: 'admin', person: ada.id, from: '2026-07-01' },
    [ada],
    'Australia/Sydney',
  );
  assert.deepEqual(filter?.person, { kind: 'person', id: ada.id, name: 'Ada' });
  assert.equal(filter?.from?.toISOString(), '2026-06-30T14:00:00.000Z');
  assert.equal(
    auditFilter({ kind: 'admin', person: 'f'.repeat(8) + ada.id.slice(8) }, [ada], 'UTC'),
    undefined,
  );
  assert.deepEqual(auditFilter({ kind: 'admin', person: 'operator' }, [], 'UTC')?.person, {
    kind: 'operator',
  });
});

test('an action as people read it, and where it came from', () => {
  assert.deepEqual(adminActionWords('PATCH /admin/v1/institutions/:slug/people/:id'), {
    what: 'PATCH people/:id',
    through: 'API',
  });
  assert.deepEqual(adminActionWords('POST /console/:slug/cohorts'), {
    what: 'POST cohorts',
    through: 'console',
  });
});

test('an escalation in the help-request audit says what happened, not a help-desk action', () => {
  assert.equal(
    helpRequestEntryWords({
      kind: 'audit',
      action: 'escalated',
      from_status: null,
      to_status: null,
      assigned_to: null,
    }),
    'Escalated: a crisis request nobody picked up within the window',
  );
});
