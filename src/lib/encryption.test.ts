import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { createKeyring, embeddedKey, generateKey, isSealed, parseKey } from './encryption.ts';

const key = () => parseKey(generateKey())!;

test('seals and opens any text; the sealed form reveals nothing of it', () => {
  const ring = createKeyring(key());
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (text) => {
      const sealed = ring.encrypt(text);
      assert.ok(isSealed(sealed));
      assert.ok(text.length < 4 || !sealed.includes(text));
      assert.equal(ring.decrypt(sealed), text);
    }),
  );
  assert.notEqual(ring.encrypt('same'), ring.encrypt('same'));
});

test('a tampered value or an unknown key is refused', () => {
  const ring = createKeyring(key());
  const sealed = ring.encrypt('client-secret');
  const parts = sealed.split(':');
  parts[5] = Buffer.from('client-secreT').toString('base64url');
  assert.throws(() => ring.decrypt(parts.join(':')));
  assert.throws(() => createKeyring(key()).decrypt(sealed), /unknown key/);
  assert.throws(() => ring.decrypt('plain'), /not an encrypted value/);
});

test('rotation: the new key seals, previous keys still open', () => {
  const oldKey = key();
  const sealedOld = createKeyring(oldKey).encrypt('s');
  const ring = createKeyring(key(), [oldKey]);
  assert.equal(ring.decrypt(sealedOld), 's');
  assert.equal(ring.isCurrent(sealedOld), false);
  assert.equal(ring.isCurrent(ring.encrypt('s')), true);
});

test('keys parse from hex or base64url; anything else is refused', () => {
  assert.equal(parseKey('ab'.repeat(32))?.length, 32);
  assert.equal(parseKey(generateKey())?.length, 32);
  assert.equal(parseKey('short'), undefined);
  assert.equal(parseKey('zz'.repeat(32)), undefined);
});

test('the embedded key is created once, private to its owner, and reused', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-key-'));
  const first = embeddedKey(dir);
  assert.deepEqual(embeddedKey(dir), first);
  assert.equal(fs.statSync(path.join(dir, 'encryption.key')).mode & 0o777, 0o600);
  fs.rmSync(dir, { recursive: true });
});
