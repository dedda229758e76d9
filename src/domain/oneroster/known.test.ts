// The memory as the push reads it (entry by entry into the maps, KnownUpdate.load) and as the
// pull reads it (a whole Known, addEntry) must be the same memory; what changed is named once
// per entry, with the values the service stores.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyKnown, type KnownKind, KnownUpdate, placedOf, placement } from './known.ts';
import { addEntry } from './memory.ts';

const stored: [KnownKind, string, Record<string, unknown>][] = [
  ['org', 'org-city', { kind: 'campus', key: 'City Campus' }],
  ['course', 'c-101', { unit: 'NURS101' }],
  ['class', 'cl-101-a', { unit: 'NURS101', term: 'as-2026-s1' }],
  ['user', 'u-1', { student: 'S1', orgs: ['org-city', 'org-nurs'] }],
  ['user', 't-1', { student: null, orgs: [] }],
  ['enrollment', 'e-1', { student: 'S1', unit: 'NURS101', term: 'as-2026-s1' }],
];

describe('the OneRoster memory', () => {
  test('read entry by entry into the maps, it is the memory the pull reads whole', () => {
    const whole = emptyKnown();
    for (const [kind, id, data] of stored) addEntry(whole, kind, id, data);
    const loaded = new KnownUpdate(undefined);
    for (const [kind, id, data] of stored) loaded.load(kind, id, data);
    assert.deepEqual(loaded.result(), new KnownUpdate(whole).result());
    assert.deepEqual(loaded.result().enrollments, { 'e-1': ['S1', 'NURS101', 'as-2026-s1'] });
    // Loading is not changing: nothing to hand back.
    assert.deepEqual([...loaded.changes()], []);
  });

  test('what a push changed is named once per entry, as the service stores it', () => {
    const known = new KnownUpdate(undefined);
    for (const [kind, id, data] of stored) known.load(kind, id, data);
    known.enrollment('e-1', placement('S1', 'NURS101', 'as-2026-s1')); // the same: no change
    known.enrollment('e-1', placement('S1', 'NURS102', 'as-2026-s1'));
    known.enrollment('e-1', placement('S1', 'NURS103', 'as-2026-s1'));
    known.enrollment('e-2', placement('S2', 'NURS101', 'as-2026-s1'));
    known.enrollment('e-2', null);
    known.student('u-1', 'S1', ['org-city', 'org-nurs']); // the same: no change
    known.other('u-1');
    const changes = [...known.changes()];
    assert.deepEqual(
      changes.map((c) => [c.kind, c.sourcedId, c.data, c.student]),
      [
        ['enrollment', 'e-1', { student: 'S1', unit: 'NURS103', term: 'as-2026-s1' }, 'S1'],
        ['enrollment', 'e-2', null, null],
        ['user', 'u-1', { student: null, orgs: [] }, null],
      ],
    );
  });

  test('a placement keeps its parts, whatever they hold', () => {
    assert.deepEqual(placedOf(placement('S 1', 'NURS-101', '2026/S1')), ['S 1', 'NURS-101', '2026/S1']);
  });
});
