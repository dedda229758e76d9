import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  enrolmentKeys,
  optionalText,
  parseCampus,
  parseEnrolment,
  parseProgram,
  parseTerm,
  parseUnit,
  requiredKey,
} from './rows.ts';

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

test('terms: real dates only, end not before start', () => {
  assert.ok(parseTerm({ term_code: 'T', start_date: '2026-02-28', end_date: '2026-02-28' }).ok);
  assert.ok(parseTerm({ term_code: 'T', start_date: '2028-02-29', end_date: '2028-03-01' }).ok);
  for (const bad of [
    '2026-02-29',
    '2026-13-01',
    '2026-1-01',
    '26-01-01',
    '2026-01-01T00:00:00Z',
    '1899-12-31',
    20260101,
  ]) {
    const parsed = parseTerm({ term_code: 'T', start_date: bad, end_date: '2030-01-01' });
    assert.ok(!parsed.ok && parsed.problem.code === 'invalid_date', String(bad));
  }
  const crossed = parseTerm({ term_code: 'T', start_date: '2026-05-02', end_date: '2026-05-01' });
  assert.ok(!crossed.ok && crossed.problem.code === 'end_before_start');
  assert.deepEqual(parseTerm({ term_code: 'T' }), {
    ok: true,
    value: { code: 'T', name: undefined, start_date: undefined, end_date: undefined },
  });
});

test('units: links keep when omitted, clear when null, campus_code is an alias of campus_name', () => {
  assert.deepEqual(parseUnit({ unit_code: 'U' }), {
    ok: true,
    value: { code: 'U', name: undefined, program_code: undefined, campus_name: undefined },
  });
  assert.deepEqual(parseUnit({ unit_code: 'U', program_code: null, campus_code: 'City' }), {
    ok: true,
    value: { code: 'U', name: undefined, program_code: null, campus_name: 'City' },
  });
  assert.ok(!parseUnit({ unit_code: 'U', program_code: [] }).ok);
});

test('enrolments: a student key, unit and term required; status normalised', () => {
  assert.deepEqual(
    parseEnrolment({ student_id_ext: 42, unit_code: 'U', term_code: 'T', status: ' Completed ' }),
    {
      ok: true,
      value: { email: undefined, student_id_ext: '42', unit_code: 'U', term_code: 'T', status: 'completed' },
    },
  );
  const noStudent = parseEnrolment({ unit_code: 'U', term_code: 'T' });
  assert.ok(!noStudent.ok && noStudent.problem.code === 'missing_field');
  const badStatus = parseEnrolment({ email: 'a@b', unit_code: 'U', term_code: 'T', status: 'dropped' });
  assert.ok(!badStatus.ok && badStatus.problem.code === 'invalid_status');
  assert.equal(parseEnrolment({ email: 'a@b', unit_code: 'U', term_code: 'T', status: null }).ok, true);
});

test('the keys an enrolment row was sent with: trimmed, integers as digits, null when absent or unusable', () => {
  assert.deepEqual(
    enrolmentKeys({ email: ' A@x.edu ', unit_code: 101, term_code: '', student_id_ext: null }),
    {
      email: 'A@x.edu',
      student_id_ext: null,
      unit_code: '101',
      term_code: null,
    },
  );
  assert.deepEqual(enrolmentKeys({ student_id_ext: 'S1', unit_code: ['U'], term_code: 'x'.repeat(101) }), {
    email: null,
    student_id_ext: 'S1',
    unit_code: null,
    term_code: null,
  });
  assert.deepEqual(enrolmentKeys('text'), {
    email: null,
    student_id_ext: null,
    unit_code: null,
    term_code: null,
  });
});
