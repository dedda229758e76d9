// The packed map answers as a Map would, through growth, deletion, and keys of any text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PackedMap } from './packed-map.ts';

describe('PackedMap', () => {
  test('answers as a Map, through growth of its table and buffer', () => {
    const packed = new PackedMap();
    const map = new Map<string, string>();
    const key = (i: number) => (i % 7 === 0 ? `é-${i}-ünïcode-🙂` : `e-${i}`);
    for (let i = 0; i < 30_000; i++) {
      const value = `S${i % 977}\u0000U${i % 13}\u0000T${i % 3}`;
      packed.set(key(i), value);
      map.set(key(i), value);
    }
    for (let i = 0; i < 30_000; i += 3) {
      packed.set(key(i), i % 2 ? null : 'moved');
      if (i % 2) map.delete(key(i));
      else map.set(key(i), 'moved');
    }
    assert.equal(packed.size, map.size);
    for (let i = 0; i < 30_100; i++) {
      assert.equal(packed.get(key(i)), map.get(key(i)));
      assert.equal(packed.has(key(i)), map.has(key(i)));
    }
    assert.deepEqual(new Map(packed.entries()), map);
    assert.equal(packed.get(''), undefined);
    packed.set('', '');
    assert.equal(packed.get(''), '');
  });

  test('lists the keys set with a mark, once each with their value now', () => {
    const packed = new PackedMap();
    packed.set('a', '1');
    packed.set('b', '2');
    packed.set('c', '3');
    packed.set('b', '20', { mark: true });
    packed.set('b', '21');
    packed.set('c', null, { mark: true });
    packed.set('d', '4', { mark: true });
    packed.set('e', null, { mark: true }); // never present: nothing to forget
    assert.deepEqual(
      [...packed.marked()],
      [
        ['b', '21'],
        ['c', null],
        ['d', '4'],
      ],
    );
    assert.equal(packed.size, 3);
  });
});
