import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disabledReason, validDescription, validEnabled, validTypes } from './endpoint-input.ts';
import { EVENT_TYPES } from './schemas.ts';

const refused = (field: string) => (error: { code?: string; extra?: { field?: string } }) =>
  error.code === 'invalid_field' && error.extra?.field === field;

test('event types: known ones, each once, sorted; anything else names event_types', () => {
  assert.deepEqual(validTypes([]), []);
  assert.deepEqual(validTypes(['help_request.updated', 'help_request.created', 'help_request.updated']), [
    'help_request.created',
    'help_request.updated',
  ]);
  for (const bad of [
    'help_request.created',
    ['webhook.test'],
    [1],
    [null],
    // More entries than twice the catalogue: refused before each is looked at.
    new Array(EVENT_TYPES.length * 2 + 1).fill('help_request.created'),
  ])
    assert.throws(() => validTypes(bad), refused('event_types'), JSON.stringify(bad));
});

test('description: none, or text of at most 500 characters', () => {
  assert.equal(validDescription(undefined), null);
  assert.equal(validDescription(null), null);
  assert.equal(validDescription('Help desk'), 'Help desk');
  assert.equal(validDescription('x'.repeat(500))?.length, 500);
  for (const bad of ['x'.repeat(501), 5, {}])
    assert.throws(() => validDescription(bad), refused('description'));
});

test('enabled: true, false or not given', () => {
  assert.equal(validEnabled(true), true);
  assert.equal(validEnabled(false), false);
  assert.equal(validEnabled(undefined), undefined);
  for (const bad of ['yes', 1, null]) assert.throws(() => validEnabled(bad), refused('enabled'));
});

test('a disabling reason is kept beside who disabled it; a bad one names reason', () => {
  assert.equal(disabledReason(undefined), 'disabled by an administrator');
  assert.equal(disabledReason(''), 'disabled by an administrator');
  assert.equal(disabledReason('maintenance'), 'disabled by an administrator: maintenance');
  for (const bad of ['x'.repeat(301), 3, null]) assert.throws(() => disabledReason(bad), refused('reason'));
});
