import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { App } from '../../types.ts';
import { refuseUnknownFormFields, unknownFieldMessage, unknownFormField } from './form-fields.ts';

test('a form field not named is found, with the closest name; framework fields always pass', () => {
  const fields = ['priority', 'note', /^name_\d{1,3}$/];
  assert.equal(
    unknownFormField({ _csrf: 't', _idempotency_key: 'k', priority: 'x', name_3: 'y' }, fields),
    undefined,
  );
  assert.deepEqual(unknownFormField({ priorty: 'crisis' }, fields), {
    field: 'priorty',
    suggestion: 'priority',
  });
  assert.deepEqual(unknownFormField({ zzzzzzzz: '' }, fields), { field: 'zzzzzzzz' });
  assert.equal(
    unknownFieldMessage({ field: 'priorty', suggestion: 'priority' }).startsWith(
      'This form had a field the service does not know: priorty (did you mean priority?)',
    ),
    true,
  );
});

test('a POST route that names no form fields stops the console at start', async () => {
  const app = Fastify();
  refuseUnknownFormFields(app as unknown as App);
  assert.throws(() => app.post('/x', async () => 'ok'), /does not name its form fields/);
  app.post('/y', { config: { formFields: ['a'] } }, async () => 'ok');
  await app.close();
});
