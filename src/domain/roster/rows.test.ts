import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFirstInFamily, parseStartDate, validateRow } from './rows.ts';

const good = { email: 'a@example.edu', student_id_ext: 'S1' };

test('a minimal row is valid and trimmed', () => {
  const result = validateRow({ email: '  A@Example.edu ', student_id_ext: ' S1 ' }, 3);
  assert.deepEqual(result, {
    ok: true,
    row: { row: 3, email: 'A@Example.edu', student_id_ext: 'S1' },
    badDate: undefined,
  });
});

test('rows of the wrong shape are errors naming the shape', () => {
  for (const [value, shape] of [
    ['text', 'string'],
    [null, 'null'],
    [42, 'number'],
    [true, 'boolean'],
    [[good], 'array'],
  ] as const) {
    const result = validateRow(value, 7);
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.row, 7);
      assert.equal(result.error.message, `The row must be an object (got ${shape})`);
    }
  }
});

test('required fields: missing, empty, wrong type, not an email, too long', () => {
  const message = (input: unknown) => {
    const result = validateRow(input, 0);
    assert.equal(result.ok, false);
    return result.ok ? '' : result.error.message;
  };
  assert.equal(message({}), 'The email is missing; the student ID is missing');
  assert.equal(message({ ...good, email: '  ' }), 'The email is empty');
  assert.equal(message({ ...good, email: 12 }), 'The email must be text (got number)');
  assert.equal(message({ ...good, student_id_ext: 12 }), 'The student ID must be text (got number)');
  assert.match(message({ ...good, email: 'not-an-email' }), /"not-an-email" is not an email address/);
  assert.match(message({ ...good, student_id_ext: 'x'.repeat(201) }), /longer than 200/);
  assert.match(message({ ...good, email: 'a\u0000b@x.io' }), /NUL character/);
  assert.match(message({ ...good, first_name: '\ud800' }), /invalid Unicode/);
  assert.equal(
    message({ ...good, first_name: 5, last_name: {} }),
    'The first name must be text (got number); the last name must be text (got object)',
  );
  assert.equal(message({ ...good, program_code: [] }), 'The program code must be text (got array)');
});

test('optional text: null or blank is "not sent"', () => {
  const result = validateRow(
    { ...good, first_name: null, last_name: '  ', program_code: '', campus_name: ' City ' },
    0,
  );
  assert.ok(result.ok);
  if (result.ok) {
    assert.equal(result.row.first_name, undefined);
    assert.equal(result.row.last_name, undefined);
    assert.equal(result.row.program_code, undefined);
    assert.equal(result.row.campus_name, 'City');
  }
});

test('first_in_family: booleans and "true"/"false"; anything else is a row error', () => {
  assert.deepEqual(parseFirstInFamily(true), { ok: true, value: true });
  assert.deepEqual(parseFirstInFamily('false'), { ok: true, value: false });
  assert.deepEqual(parseFirstInFamily(' TRUE '), { ok: true, value: true });
  assert.deepEqual(parseFirstInFamily(undefined), { ok: true });
  assert.deepEqual(parseFirstInFamily(null), { ok: true });
  for (const bad of ['yes', 1, 0, '', {}]) assert.deepEqual(parseFirstInFamily(bad), { ok: false });
  const result = validateRow({ ...good, first_in_family: 'yes' }, 2);
  assert.equal(result.ok, false);
  if (!result.ok)
    assert.match(
      result.error.message,
      /First in family must be true, false, "true" or "false" \(got "yes"\)/,
    );
});

test('start_date: valid dates kept, invalid ones dropped and reported, never an error', () => {
  assert.equal(parseStartDate('2026-02-28'), '2026-02-28');
  assert.equal(parseStartDate('2024-02-29'), '2024-02-29');
  for (const bad of [
    '2025-02-29',
    '2026-13-01',
    '26-02-01',
    '2026/02/01',
    '0000-01-01',
    '2026-02-01T00:00',
    20260201,
    {},
  ]) {
    assert.equal(parseStartDate(bad), undefined, String(bad));
  }
  const result = validateRow({ ...good, start_date: '2025-02-30' }, 4);
  assert.ok(result.ok);
  if (result.ok) assert.equal(result.row.start_date, undefined);
  assert.deepEqual(result.badDate, { row: 4, value: '2025-02-30' });
  const numeric = validateRow({ ...good, start_date: 20250230 }, 5);
  assert.ok(numeric.ok);
  assert.deepEqual(numeric.badDate, { row: 5, value: '20250230' });
});

test('all fields', () => {
  const sent = {
    email: 'x@y.io',
    student_id_ext: 'E9',
    first_name: 'Ana',
    last_name: 'Lima',
    program_code: 'BSCI',
    campus_name: 'City',
    campus_code: 'north',
    first_in_family: 'false',
    start_date: '2026-03-02',
  };
  const result = validateRow({ ...sent, extra: 'ignored' }, 9);
  assert.deepEqual(result, {
    ok: true,
    badDate: undefined,
    row: { row: 9, ...sent, first_in_family: false },
  });
});

test('a row error carries the keys the row was sent with, null when absent or unusable', () => {
  const keys = (input: unknown) => {
    const result = validateRow(input, 2);
    assert.equal(result.ok, false);
    return result.ok ? undefined : [result.error.row, result.error.email, result.error.student_id_ext];
  };
  assert.deepEqual(keys({ email: ' not-an-email ', student_id_ext: ' S9 ' }), [2, 'not-an-email', 'S9']);
  assert.deepEqual(keys({ email: 'a@example.edu' }), [2, 'a@example.edu', null]);
  assert.deepEqual(keys({ email: 42, student_id_ext: '' }), [2, null, null]);
  assert.deepEqual(keys({ email: `${'x'.repeat(260)}@example.edu`, student_id_ext: 'S1' }), [2, null, 'S1']);
  assert.deepEqual(keys('text'), [2, null, null]);
  assert.deepEqual(keys({ ...good, first_in_family: 'maybe' }), [2, 'a@example.edu', 'S1']);
  const result = validateRow({ student_id_ext: 'S3' }, 0);
  assert.deepEqual(Object.keys(result.ok ? {} : result.error).slice(0, 3), [
    'row',
    'email',
    'student_id_ext',
  ]);
});
