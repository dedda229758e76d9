import assert from 'node:assert/strict';
import { test } from 'node:test';
import { optionalText, parseCampus, parseProgram, requiredKey } from './rows.ts';

test('optional text: absent keeps, null or blank clears, strings are trimmed', () => {
  assert.deepEqual(optionalText({}, 'x', 10), { ok: true, value: undefined });
  assert.deepEqual(optionalText({ x: undefined }, 'x', 10), { ok: true, value: undefined });
  assert.deepEqual(optionalText({ x: null }, 'x', 10), { ok: true, value: null });
  assert.deepEqual(optionalText({ x: '   ' }, 'x', 10), { ok: true, value: null });
  assert.deepEqual(optionalText({ x: ' a b ' }, 'x', 10), { ok: true, value: 'a b' });
  assert.equal(optionalText({ x: 'a'.repeat(11) }, 'x', 10).ok, false);
  assert.equal(optionalText({ x: 3 }, 'x', 10).ok, false);
  assert.equal(optionalText({ x: 'a\u0000' }, 'x', 10).ok, false);
  assert.equal(optionalText({ x: '\uD800' }, 'x', 10).ok, false);
});

test('keys are required non-blank strings; safe integers are read as digits', () => {
  assert.deepEqual(requiredKey({ k: ' A1 ' }, 'k'), { ok: true, value: 'A1' });
  assert.deepEqual(requiredKey({ k: 2024 }, 'k'), { ok: true, value: '2024' });
  for (const bad of [undefined, null, '', ' ', 1.5, 2 ** 60, true, {}, []]) {
    assert.equal(requiredKey({ k: bad }, 'k').ok, false, String(bad));
  }
  const missing = requiredKey({}, 'k');
  assert.ok(!missing.ok && missing.problem.code === 'missing_field' && missing.problem.field === 'k');
});

test('programs: an omitted or blank name is undefined (kept); coordinator null clears', () => {
  assert.deepEqual(parseProgram({ program_code: 'P', name: '' }), {
    ok: true,
    value: { code: 'P', name: undefined, coordinator_name: undefined, coordinator_title: undefined },
  });
  const parsed = parseProgram({
    program_code: 'P',
    name: 'N',
    coordinator_name: null,
    coordinator_title: 'T',
  });
  assert.deepEqual(parsed, {
    ok: true,
    value: { code: 'P', name: 'N', coordinator_name: null, coordinator_title: 'T' },
  });
  for (const row of [null, 'x', 1, [], {}]) assert.equal(parseProgram(row).ok, false);
});

test('campuses: name or its alias campus_name; both must agree', () => {
  assert.deepEqual(parseCampus({ name: 'City' }), { ok: true, value: { name: 'City' } });
  assert.deepEqual(parseCampus({ campus_name: 'City' }), { ok: true, value: { name: 'City' } });
  assert.deepEqual(parseCampus({ name: 'City', campus_name: 'CITY' }), { ok: true, value: { name: 'City' } });
  const conflict = parseCampus({ name: 'City', campus_name: 'Town' });
  assert.ok(!conflict.ok && conflict.problem.code === 'conflicting_fields');
  assert.ok(!parseCampus({ name: null, campus_name: null }).ok);
});
