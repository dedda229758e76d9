import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeCalendar, storableText, unfoldBytes } from './ics-text.ts';
import { FeedProblem } from './problems.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

test('a fold inside a multi-byte UTF-8 character is unfolded before decoding', () => {
  const line = Buffer.from('SUMMARY:Café – Zürich 日本', 'utf8');
  // Fold after the first byte of "é" (0xC3 0xA9), and inside the 3-byte "日".
  const e = line.indexOf(0xc3);
  const ja = line.indexOf(Buffer.from('日', 'utf8'));
  const folded = Buffer.concat([
    line.subarray(0, e + 1),
    Buffer.from('\r\n '),
    line.subarray(e + 1, ja + 2),
    Buffer.from('\r\n\t'),
    line.subarray(ja + 2),
  ]);
  const text = decodeCalendar(
    Buffer.concat([Buffer.from('BEGIN:VCALENDAR\r\n'), folded, Buffer.from('\r\nEND:VCALENDAR\r\n')]),
  );
  assert.match(text, /SUMMARY:Café – Zürich 日本\r\n/);
  assert.ok(!text.includes('\uFFFD'));
});

test('bare-LF folds are unfolded too; a line break not followed by blank space is kept', () => {
  assert.equal(new TextDecoder().decode(unfoldBytes(bytes('A:1\n 2\nB:3'))), 'A:12\nB:3');
});

test('a byte-order mark and leading blank lines are accepted', () => {
  const text = decodeCalendar(bytes('\uFEFF\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'));
  assert.match(text, /BEGIN:VCALENDAR/);
});

test('what is not a whole calendar is refused with a readable reason', () => {
  const reason = (body: string, type?: string) => {
    try {
      decodeCalendar(bytes(body), type);
      return 'accepted';
    } catch (error) {
      assert.ok(error instanceof FeedProblem);
      return (error as Error).message;
    }
  };
  assert.match(reason(''), /empty/);
  assert.match(reason('   \r\n'), /blank/);
  assert.match(reason('<!DOCTYPE html><html><body>Sign in</body></html>', 'text/html'), /HTML page/);
  assert.match(reason('<html>', undefined), /HTML page/);
  assert.match(reason('{"events": []}', 'application/json'), /not an iCalendar file/);
  assert.match(reason('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n'), /truncated/);
});

test('storable text drops NUL and lone surrogates and is cut to length', () => {
  assert.equal(storableText('a\u0000b\uD800c', 10), 'ab\uFFFDc');
  assert.equal(storableText('x'.repeat(20), 5), 'xxxxx');
  assert.equal(storableText('  ', 5), null);
  assert.equal(storableText(42, 5), null);
});
