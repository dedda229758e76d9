import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPrinter, render } from './output.ts';

test('a listing page is a table with the next cursor under it', () => {
  const text = render({
    items: [
      { email: 'ada@example.edu', last_name: 'Lovelace', departed_at: null },
      { email: 'grace@example.edu', last_name: 'Hopper', departed_at: null },
    ],
    next_cursor: 'abc.def',
  });
  assert.equal(
    text,
    'email              last_name  departed_at\n' +
      '-----------------  ---------  -----------\n' +
      'ada@example.edu    Lovelace\n' +
      'grace@example.edu  Hopper\n' +
      'next page: --cursor abc.def\n',
  );
  assert.equal(render({ items: [], next_cursor: null }), '(none)\n');
});

test('an object is field and value; long values are cut', () => {
  const text = render({ slug: 'x', note: 'n'.repeat(100), nested: { a: 1 } });
  assert.match(text, /^field +value\n/);
  assert.match(text, /note +n{47}…\n/);
  assert.match(text, /nested +\{"a":1\}\n/);
});

test('JSON when asked, or when the output is not a terminal', () => {
  const written: string[] = [];
  const stream = (isTTY: boolean) =>
    ({ isTTY, write: (s: string) => written.push(s) }) as unknown as NodeJS.WriteStream;
  createPrinter(() => ({}), stream(false))({ a: 1 });
  createPrinter(() => ({ json: true }), stream(true))({ a: 1 });
  createPrinter(() => ({}), stream(true))({ a: 1 });
  assert.deepEqual(written, [
    '{\n  "a": 1\n}\n',
    '{\n  "a": 1\n}\n',
    'field  value\n-----  -----\na      1\n',
  ]);
});
