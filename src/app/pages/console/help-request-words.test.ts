import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimelineItem } from '../../../domain/helpdesk/schemas.ts';
import {
  categoryLabel,
  priorityLabel,
  sixWeeksLabel,
  statusLabel,
  timelineWhat,
  timelineWho,
} from './help-request-words.ts';

const entry = (fields: Partial<TimelineItem>): TimelineItem => ({
  id: 'e',
  seq: 1,
  kind: 'audit',
  action: 'created',
  actor: null,
  origin: 'platform',
  note: null,
  from_status: null,
  to_status: null,
  external_ref: null,
  assigned_to: null,
  assigned_to_id: null,
  version: 1,
  created_at: new Date('2026-03-04T10:00:00Z'),
  ...fields,
});

test('statuses in words, not codes', () => {
  assert.equal(statusLabel('in_progress'), 'In progress');
  assert.equal(statusLabel('ack'), 'Acknowledged');
});

test('each timeline entry is a sentence, with who did it', () => {
  const change = entry({ action: 'status', from_status: 'new', to_status: 'in_progress', actor: 'Kai Lee' });
  assert.equal(timelineWhat(change), 'Status changed from New to In progress');
  assert.equal(timelineWho(change), 'Kai Lee');
  assert.equal(timelineWhat(entry({ action: 'assign', assigned_to: 'Robin' })), 'Assigned to Robin');
  assert.equal(timelineWhat(entry({ kind: 'note', action: 'note' })), 'Internal note added');
  const escalated = entry({ action: 'escalated', actor: null });
  assert.equal(timelineWhat(escalated), 'Escalated: a crisis request nobody picked up in time');
  assert.equal(timelineWho(escalated), undefined);
  const synced = entry({
    action: 'resolve',
    origin: 'integration',
    from_status: 'ack',
    to_status: 'resolved',
  });
  assert.equal(timelineWhat(synced), 'Resolved in the help desk (Acknowledged to Resolved)');
  assert.equal(timelineWho(synced), 'the help desk');
  assert.equal(
    timelineWhat(entry({ action: 'reopen_superseded', origin: 'integration' })),
    'Reopened in the help desk: not applied, because a later staff change stands',
  );
});

test('where the student is in their six weeks', () => {
  assert.equal(sixWeeksLabel({ state: 'during', week: 3, start: '2026-09-07' }), 'Week 3 of 6');
  assert.equal(sixWeeksLabel({ state: 'before', week: null, start: '2026-09-07' }), 'Starts on 2026-09-07');
  assert.equal(sixWeeksLabel({ state: 'no_start', week: null, start: null }), 'No start date yet');
});

test('priorities and categories in the words staff use', () => {
  assert.equal(priorityLabel('high'), 'Urgent');
  assert.equal(priorityLabel('crisis'), 'Crisis');
  assert.equal(categoryLabel('academic'), 'Studies and assessments');
  assert.equal(categoryLabel(null), 'No category');
});
