import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCell, csvRow } from './csv.ts';

test('plain values are written as they are; null and undefined are empty', () => {
  assert.equal(csvRow(['ada@example.edu', 42, true, null, undefined]), 'ada@example.edu,42,true,,\r\n');
});

test('dates are ISO 8601 UTC', () => {
  assert.equal(csvCell(new Date('2026-03-01T10:00:00Z')), '2026-03-01T10:00:00.000Z');
});

test('commas, quotes and line breaks are quoted, quotes doubled (RFC 4180)', () => {
  assert.equal(csvCell('Lovelace, Ada'), '"Lovelace, Ada"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
  assert.equal(csvCell('cr\rhere'), '"cr\rhere"');
});

test('cells that a spreadsheet would run as a formula start with a quote', () => {
  for (const text of ['=1+1', '+44 20', '-2', '@SUM(A1)', '\tx'])
    assert.equal(csvCell(text).replace(/^"/, '').startsWith(`'${text[0]}`), true, text);
  assert.equal(csvCell('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
  assert.equal(csvCell('a=b'), 'a=b');
});
