import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../errors.ts';
import { checkErrors, refusalOf } from './forms.ts';

test('a domain refusal is shown next to the field it names, or above the form, in words (no code), with its status', () => {
  const assignee = new ApiError('assignee_removed', { field: 'assignee_id', detail: 'Ann was removed' });
  assert.deepEqual(refusalOf(assignee, ['assignee_id']), {
    errors: { assignee_id: 'Ann was removed' },
    status: 400,
  });
  const disabled = new ApiError('endpoint_disabled', { detail: 'enable the endpoint first' });
  assert.deepEqual(refusalOf(disabled, ['since']), {
    errors: {},
    formError: 'enable the endpoint first',
    status: 409,
  });
  assert.throws(() => refusalOf(new Error('boom'), []), /boom/);
  assert.throws(() => refusalOf(new ApiError('internal_error'), []), ApiError);
});

test("a form check's messages: each next to its field, those of no field above the form", () => {
  assert.deepEqual(checkErrors({ note: 'Enter note' }), { errors: { note: 'Enter note' } });
  assert.deepEqual(checkErrors({ _form: 'event_id is not valid' }), {
    errors: {},
    formError: 'event_id is not valid',
  });
});
