import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { checkForm, enterText, withFieldChecks } from './form-check.ts';

const Schema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 5 }),
  slug: Type.String({ pattern: '^[a-z]+$' }),
  start_date: Type.Optional(Type.String({ format: 'date' })),
  clock: Type.Optional(Type.Union([Type.Literal('cohort'), Type.Literal('individual')])),
});
const fields = {
  name: { label: 'Name' },
  slug: { label: 'Slug', hint: 'Use lowercase letters only' },
  start_date: { label: 'Start date' },
  clock: { label: 'Clock' },
};

test('every field is told its problem at once, in words about the field as labelled', () => {
  const result = checkForm(Schema, { name: '', slug: 'A!', start_date: 'soon', clock: 'x' }, fields);
  assert.equal(result.ok, false);
  assert.deepEqual(!result.ok && result.errors, {
    name: 'Enter a name',
    slug: 'Use lowercase letters only',
    start_date: 'Enter start date as a date, YYYY-MM-DD',
    clock: 'Choose one of the clock options',
  });
});

test('missing fields, lengths, and fields the form does not name', () => {
  const missing = checkForm(Schema, {}, fields);
  assert.deepEqual(!missing.ok && missing.errors, { name: 'Enter a name', slug: 'Enter a slug' });
  const long = checkForm(Schema, { name: 'abcdefg', slug: 'ok' }, fields);
  assert.deepEqual(!long.ok && long.errors, { name: 'Name must be 5 characters or fewer' });
  const unnamed = checkForm(Schema, { name: 'a', slug: 'b' }, { name: { label: 'Name' } });
  assert.equal(unnamed.ok, true);
});

test('valid values pass through typed', () => {
  const result = checkForm(Schema, { name: 'Ann', slug: 'ann', clock: 'cohort' }, fields);
  assert.deepEqual(result, { ok: true, value: { name: 'Ann', slug: 'ann', clock: 'cohort' } });
});

test('a value too long says so before any other problem of the field', () => {
  const schema = Type.Object({ slug: Type.String({ maxLength: 63, pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) });
  const checked = checkForm(
    schema,
    { slug: 'a'.repeat(70) },
    { slug: { label: 'Slug', hint: 'Use lower-case letters' } },
  );
  assert.deepEqual(checked, { ok: false, errors: { slug: 'Slug must be 63 characters or fewer' } });
  const pattern = checkForm(
    schema,
    { slug: 'Bad Slug' },
    { slug: { label: 'Slug', hint: 'Use lower-case letters' } },
  );
  assert.deepEqual(pattern, { ok: false, errors: { slug: 'Use lower-case letters' } });
});

test("the domain's checks of single fields show with the schema's problems, all at once", () => {
  const schema = Type.Object({ name: Type.String({ minLength: 1 }), start: Type.String() });
  const fields = { name: { label: 'Name' }, start: { label: 'Start', hint: 'Enter a date that exists' } };
  const refuse = () => {
    throw new ApiError('invalid_field', { field: 'start' });
  };
  assert.deepEqual(
    withFieldChecks(checkForm(schema, { name: '', start: '2026-02-30' }, fields), { start: refuse }, fields),
    {
      ok: false,
      errors: { name: 'Enter a name', start: 'Enter a date that exists' },
    },
  );
  const fine = checkForm(schema, { name: 'A', start: '2026-02-28' }, fields);
  assert.deepEqual(withFieldChecks(fine, { start: () => '2026-02-28' }, fields), fine);
  assert.throws(
    () =>
      withFieldChecks(
        fine,
        {
          start: () => {
            throw new Error('boom');
          },
        },
        fields,
      ),
    /boom/,
  );
});

test('an empty field is asked for with its article, as a person would say it', () => {
  const cases: [string, string][] = [
    ['Name', 'Enter a name'],
    ['Slug', 'Enter a slug'],
    ['Email', 'Enter an email'],
    ['Issuer URL', 'Enter an issuer URL'],
    ['URL', 'Enter a URL'],
    ['Base URL', 'Enter a base URL'],
    ['Time zone', 'Enter a time zone'],
    ['Unit code', 'Enter a unit code'],
    ['Email domains', 'Enter email domains'],
    ['The campus that stays', 'Enter the campus that stays'],
    ['Which cohorts', 'Enter which cohorts'],
    ['Status', 'Enter a status'],
  ];
  for (const [label, sentence] of cases) assert.equal(enterText(label), sentence, label);
});
