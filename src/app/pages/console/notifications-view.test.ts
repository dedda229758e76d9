import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NotificationRow } from '../../../domain/notifications/settings.ts';
import { emailView, notificationRow, personRow } from './notifications-view.ts';

const time = (value: unknown) => (value ? new Date(value as Date).toISOString().slice(0, 16) : '—');
const row: NotificationRow = {
  id: 'n1',
  help_request_id: 'r1',
  person_id: 'p1',
  person_name: 'Kai Lee',
  person_email: 'kai@example.edu',
  reason: 'crisis',
  state: 'pending',
  attempts: 2,
  next_attempt_at: new Date('2026-11-25T10:00:00Z'),
  last_error: '451 try later',
  created_at: new Date('2026-11-25T09:58:00Z'),
  finished_at: null,
};

test('a pending row after a failed attempt reads as retrying with its next try', () => {
  const view = notificationRow(row, '/console/north', time);
  assert.equal(view.state, 'Retrying');
  assert.equal(view.stateDetail, 'next try 2026-11-25T10:00');
  assert.equal(view.link, '/console/north/inbox/r1');
  assert.equal(view.problem, '451 try later');
  assert.equal(view.reason, 'New crisis request');
});

test('finished rows read in words with when they finished', () => {
  const finished = new Date('2026-11-25T10:01:00Z');
  assert.deepEqual(
    (['sent', 'failed', 'skipped'] as const).map((state) => {
      const view = notificationRow({ ...row, state, finished_at: finished }, '/c', time);
      return [view.state, view.stateDetail];
    }),
    [
      ['Sent', '2026-11-25T10:01'],
      ['Failed', '2026-11-25T10:01'],
      ['Not sent', '2026-11-25T10:01'],
    ],
  );
  assert.equal(notificationRow({ ...row, attempts: 0 }, '/c', time).state, 'Waiting to be sent');
});

test('email off is said plainly; people show what they asked for', () => {
  assert.equal(emailView({ enabled: false, from: null, server: null }).on, false);
  assert.match(emailView({ enabled: false, from: null, server: null }).summary, /^Notifications are off/);
  assert.equal(
    personRow({
      person_id: 'p',
      name: 'A',
      email: 'a@x',
      roles: ['staff'],
      crisis: false,
      any_new: true,
      assigned: true,
    }).own,
    'Also asked for every new request and requests assigned to them',
  );
});
