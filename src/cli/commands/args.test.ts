import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commaList, institutionPath } from './args.ts';

test('an institution path encodes every segment and leaves out the missing ones', () => {
  assert.equal(
    institutionPath('north bridge', 'calendar-feeds'),
    '/admin/v1/institutions/north%20bridge/calendar-feeds',
  );
  assert.equal(
    institutionPath('nb', 'webhook-endpoints', undefined),
    '/admin/v1/institutions/nb/webhook-endpoints',
  );
  assert.equal(
    institutionPath('nb', 'events', 'a/b', 'deliveries'),
    '/admin/v1/institutions/nb/events/a%2Fb/deliveries',
  );
});

test('a comma list is trimmed, drops empty items, and an absent option stays absent', () => {
  assert.deepEqual(commaList(' a, b,,c '), ['a', 'b', 'c']);
  assert.deepEqual(commaList(''), []);
  assert.equal(commaList(undefined), undefined);
});
