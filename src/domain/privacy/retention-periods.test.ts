import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../errors.ts';
import { checkSettings, cutoff, periodRules, periodsOf } from './retention-periods.ts';

test('unset periods keep their defaults', () => {
  const periods = periodsOf({ run_errors: 30, notifications: null });
  assert.equal(periods.run_errors, 30);
  assert.equal(periods.notifications, periodRules.notifications.default);
  assert.equal(periods.resolved_requests, 730);
});

test('a period outside its floor or ceiling, or not whole, is refused naming the field', () => {
  for (const value of [0, 6, 731, 7.5, '30', true]) {
    assert.throws(
      () => checkSettings({ run_errors_days: value }),
      (e: unknown) =>
        e instanceof ApiError && e.code === 'invalid_field' && e.extra.field === 'run_errors_days',
    );
  }
  assert.deepEqual(checkSettings({ run_errors_days: 7, access_log_days: null }), {
    run_errors: 7,
    access_log: null,
  });
});

test('an unknown setting is refused', () => {
  assert.throws(
    () => checkSettings({ forever_days: 5 }),
    (e: unknown) => e instanceof ApiError && e.code === 'unknown_field',
  );
});

test('the cut-off is that many days before now', () => {
  assert.equal(cutoff(new Date('2026-03-11T00:00:00Z'), 10).toISOString(), '2026-03-01T00:00:00.000Z');
});
