import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checklistOf } from './onboarding.ts';

const now = new Date('2026-09-10T12:00:00Z');
const none = {
  taxonomy: false,
  roster_dry_run: false,
  roster_pushed: false,
  last_real_id: null,
  last_real_errors: null,
  last_full_sync: null,
};

test('nothing pushed: every step to do, each saying what is missing', () => {
  const steps = checklistOf(none, now);
  assert.deepEqual(
    steps.map((s) => s.done),
    [false, false, false, false, false],
  );
  assert.match(steps[4].detail, /ssp push roster --full-sync/);
});

test('errors of the latest real push point to its run; a full sync older than 36 hours does not count', () => {
  const steps = checklistOf(
    {
      taxonomy: true,
      roster_dry_run: true,
      roster_pushed: true,
      last_real_id: 'run-1',
      last_real_errors: 3,
      last_full_sync: new Date('2026-09-08T23:00:00Z'),
    },
    now,
  );
  assert.deepEqual(
    steps.map((s) => s.done),
    [true, true, true, false, false],
  );
  assert.equal(steps[3].runId, 'run-1');
  assert.match(steps[3].detail, /3 row errors/);
  const fresh = checklistOf(
    { ...none, last_real_id: 'run-2', last_real_errors: 0, last_full_sync: new Date('2026-09-10T02:00:00Z') },
    now,
  );
  assert.equal(fresh[3].done, true);
  assert.equal(fresh[4].done, true);
});

test('each step says when it counts as done; the errors step is about the latest real roster push', () => {
  const steps = checklistOf(none, now);
  for (const step of steps) assert.match(step.means, /^Done /, step.key);
  assert.equal(steps[3].detail, 'No real roster push yet.');
  assert.match(
    steps[3].means,
    /latest real \(not dry-run\) roster push, or OneRoster pull, had no row errors/,
  );
});
