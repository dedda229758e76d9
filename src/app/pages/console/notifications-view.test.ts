import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OutboxRow } from '../../../domain/notifications/settings.ts';
import { emailView, notificationRow, personRow } from './notifications-view.ts';

const time = (value: unknown) => (value ? new Date(value as Date).toISOString().slice(0, 16) : '—');
const row: OutboxRow = {
  id: 'n1',
  help_request_id: 'r1',
  recipient: 'person',
  name: 'Kai Lee',
  email: 'kai@example.edu',
  reason: 'crisis',
  rule: 'crisis_recipient',
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

test('emails to students and invitations read with their rule; an invitation links to no request', () => {
  const reply = notificationRow(
    { ...row, recipient: 'student', name: 'Sam Student', reason: 'reply', rule: 'requester' },
    '/c',
    time,
  );
  assert.equal(reply.student, true);
  assert.equal(reply.reason, 'Staff replied (to the student)');
  assert.match(reply.rule, /they raised the request/);
  assert.equal(reply.link, '/c/inbox/r1');
  const invited = notificationRow(
    { ...row, help_request_id: null, reason: 'invited', rule: 'invited' },
    '/c',
    time,
  );
  assert.equal(invited.reason, 'Invitation to the console');
  assert.equal(invited.rule, 'an admin invited them to the console');
  assert.equal(invited.link, undefined);
  assert.equal(
    notificationRow({ ...row, recipient: 'student', name: null, email: null }, '/c', time).name,
    'A student erased since',
  );
});
