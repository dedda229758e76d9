import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { decodeLiteral } from './reference-script.ts';

/** Decodes `source` (a literal's text and its closing quote) fed in two pieces cut at `cut`. */
function decodeInPieces(source: Buffer, cut: number): Buffer {
  const first = decodeLiteral(source.subarray(0, cut));
  if (first.ended) return first.out;
  const second = decodeLiteral(Buffer.concat([source.subarray(first.used, cut), source.subarray(cut)]));
  assert.ok(second.ended);
  return Buffer.concat([first.out, second.out]);
}

test('a string literal decodes as JavaScript reads it, wherever a chunk ends', () => {
  const text =
    String.raw`a\"b\\c\nd\re\tf\bg\fh\vi\0j\x41\xe9\u00e9\u20ac\u{1F600}\uD83D\uDE00\uD800z\'\q` +
    '\\\nline\\\r\nnext é€😀 `tpl` \\u2028';
  const expected = Buffer.from(vm.runInNewContext(`"${text}"`), 'utf8');
  const source = Buffer.from(`${text}";tail`, 'utf8');
  for (let cut = 0; cut <= source.length; cut++)
    assert.ok(decodeInPieces(source, cut).equals(expected), `cut at ${cut}`);
  assert.equal(decodeLiteral(Buffer.from('abc')).ended, false);
  assert.throws(() => decodeLiteral(Buffer.from(String.raw`\1abc"`)), /octal/);
});
