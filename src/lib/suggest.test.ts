import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { closestName, editDistance } from './suggest.ts';
import { findUnknownField } from './unknown-fields.ts';

test('editDistance counts insertions, deletions and substitutions', () => {
  assert.equal(editDistance('', ''), 0);
  assert.equal(editDistance('abc', ''), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('dryrun', 'dry_run'), 1);
});

test('editDistance is a metric on arbitrary strings', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
      const d = editDistance(a, b);
      assert.equal(d, editDistance(b, a));
      assert.ok(d <= Math.max(a.length, b.length));
      assert.ok(d >= Math.abs(a.length - b.length));
      assert.equal(d === 0, a === b);
    }),
  );
});

test('closestName suggests likely misspellings only', () => {
  const roster = ['cohort_id', 'students', 'dry_run', 'sync_id', 'final_page'];
  assert.equal(closestName('dryRun', roster), 'dry_run');
  assert.equal(closestName('DRY-RUN', roster), 'dry_run');
  assert.equal(closestName('dry_runn', roster), 'dry_run');
  assert.equal(closestName('cohortId', roster), 'cohort_id');
  assert.equal(closestName('student', roster), 'students');
  assert.equal(closestName('finalPage', roster), 'final_page');
  assert.equal(closestName('priority', roster), undefined);
  assert.equal(closestName('x', roster), undefined);
  assert.equal(closestName('a'.repeat(200), roster), undefined);
  assert.equal(closestName('instituion', ['institution', 'actor', 'updates']), 'institution');
});

test('findUnknownField names the first unknown key of an object, nothing for other values', () => {
  assert.deepEqual(findUnknownField({ a: 1, dryRun: true }, ['a', 'dry_run']), {
    field: 'dryRun',
    suggestion: 'dry_run',
  });
  assert.deepEqual(findUnknownField({ a: 1, zzz: 2 }, ['a']), { field: 'zzz' });
  assert.equal(findUnknownField({ a: 1 }, ['a']), undefined);
  for (const body of [null, [], 'x', 3, undefined]) assert.equal(findUnknownField(body, ['a']), undefined);
});
