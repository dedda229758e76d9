import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Caller } from '../../../domain/access/policy.ts';
import type { HelpRequest, HelpRequestListItem } from '../../../domain/helpdesk/schemas.ts';
import { defaultInboxSettings } from '../../../domain/inbox/model.ts';
import {
  assigneeOptions,
  assignmentOf,
  helpRequestView,
  inboxFilters,
  inboxQuery,
  inboxRefusal,
  inboxUrl,
  inboxView,
} from './inbox-view.ts';

const me = '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d';
const staff: Caller = {
  kind: 'person',
  personId: me,
  institutionId: 'i',
  roles: ['staff'],
  permissions: [],
  actor: 'Kai Lee',
  sessionId: 's',
};
const operator: Caller = { kind: 'operator', actor: 'operator', sessionId: 's' };

const request = (
  id: string,
  priority: HelpRequest['priority'],
  status: HelpRequest['status'],
): HelpRequestListItem => ({
  id,
  student_id: null,
  status,
  priority,
  category: null,
  summary: `Request ${id}`,
  assigned_to: null,
  assigned_to_id: null,
  external_ref: null,
  resolved_at: null,
  version: 1,
  first_response_at: null,
  created_at: new Date('2026-03-04T10:00:00Z'),
  updated_at: new Date('2026-03-04T10:00:00Z'),
  student: null,
});

test('the filters of a URL: only values the form offers; "unassigned" is the listing\'s none, crisis first', () => {
  const filters = inboxFilters({ status: 'resolved', priority: 'urgent', assigned: 'unassigned' });
  assert.deepEqual(filters, {
    status: 'resolved',
    priority: undefined,
    category: undefined,
    assigned: 'unassigned',
  });
  assert.deepEqual(inboxQuery(filters), {
    status: 'resolved',
    priority: undefined,
    category: undefined,
    q: undefined,
    assigned: 'none',
    order: 'crisis_first',
  });
  assert.equal(inboxQuery(inboxFilters({ assigned: 'me' })).assigned, 'me');
  assert.equal(inboxQuery(inboxFilters({ assigned: 'someone' })).assigned, undefined);
  assert.equal(inboxUrl('/console/x/inbox', filters), '/console/x/inbox?status=resolved&assigned=unassigned');
  assert.equal(inboxUrl('/console/x/inbox', {}), '/console/x/inbox?');
  const found = inboxFilters({ category: 'financial', q: '  ada ', priority: 'high' });
  assert.deepEqual(found, {
    status: undefined,
    priority: 'high',
    category: 'financial',
    assigned: undefined,
    q: 'ada',
  });
  assert.equal(
    inboxUrl('/console/x/inbox', found),
    '/console/x/inbox?priority=high&category=financial&q=ada',
  );
  assert.match(inboxRefusal({ category: 'academia' }) ?? '', /“academia” is not a category/);
});

test('open crisis requests are shown apart; a resolved crisis request is one of the others', () => {
  const items = [
    request('a', 'crisis', 'new'),
    request('b', 'crisis', 'resolved'),
    request('c', 'normal', 'ack'),
  ];
  const view = inboxView({ items, paged: false }, {}, '/console/x/inbox', {
    settings: defaultInboxSettings,
    now: new Date('2026-03-04T10:20:00Z'),
  });
  assert.deepEqual(
    view.crisis.map((r) => r.id),
    ['a'],
  );
  assert.deepEqual(
    view.items.map((r) => r.id),
    ['b', 'c'],
  );
  assert.equal(view.self, '/console/x/inbox?');
});

test('namesakes are told apart by email; "me" only when the signed-in person may be assigned', () => {
  const assignees = [
    { id: me, name: 'Kai Lee', email: 'kai@example.edu' },
    { id: 'b', name: 'Kai Lee', email: 'kai.lee@example.edu' },
    { id: 'c', name: 'Robin', email: 'robin@example.edu' },
  ];
  assert.deepEqual(
    assigneeOptions(assignees).map((a) => a.label),
    ['Kai Lee (kai@example.edu)', 'Kai Lee (kai.lee@example.edu)', 'Robin'],
  );
  const detail = { ...request('a', 'normal', 'new'), timeline: [], student: null };
  assert.equal(helpRequestView(detail, assignees, staff, '/back').me, me);
  assert.equal(helpRequestView(detail, assignees.slice(1), staff, '/back').me, undefined);
  assert.equal(helpRequestView(detail, assignees, operator, '/back').me, undefined);
  assert.equal(helpRequestView(detail, assignees, staff, '/back').title, 'Help request: Request a');
});

test('the assignment form: unassign, assign to me whatever the select holds, or the chosen person', () => {
  assert.deepEqual(assignmentOf({ unassign: 'yes', assignee_id: 'c' }, staff), { assignee_id: null });
  assert.deepEqual(assignmentOf({ to_me: 'yes', assignee_id: 'c' }, staff), { assignee_id: me });
  assert.deepEqual(assignmentOf({ to_me: 'yes', assignee_id: 'c' }, operator), { assignee_id: 'c' });
  assert.deepEqual(assignmentOf({ assignee_id: ' c ' }, staff), { assignee_id: 'c' });
  assert.deepEqual(assignmentOf(undefined, staff), { assignee_id: '' });
});

test("a crisis request's page lists the crisis contacts; another request's page does not", () => {
  const contacts = [
    { name: 'Campus security', phone: '555 0100', url: null, hours: '24/7', description: null },
  ];
  const crisis = { ...request('a', 'crisis', 'new'), timeline: [], student: null };
  const normal = { ...request('b', 'normal', 'new'), timeline: [], student: null };
  assert.deepEqual(helpRequestView(crisis, [], staff, '/back', contacts).contacts, contacts);
  assert.deepEqual(helpRequestView(normal, [], staff, '/back', contacts).contacts, []);
});

test("time waiting against the priority's target: a crisis request waiting 20 minutes is past its 15", () => {
  const items = [
    request('a', 'crisis', 'new'),
    { ...request('c', 'normal', 'ack'), first_response_at: new Date('2026-03-04T10:05:00Z') },
  ];
  const view = inboxView({ items, paged: false }, { q: 'ada' }, '/console/x/inbox', {
    settings: defaultInboxSettings,
    now: new Date('2026-03-04T10:20:00Z'),
  });
  const [crisis] = view.crisis;
  assert.equal(crisis.waited, '20 min');
  assert.equal(crisis.target, '15 min');
  assert.equal(crisis.clock.breached, true);
  assert.equal(crisis.clock.waiting, true);
  const [answered] = view.items;
  assert.equal(answered.waited, '5 min');
  assert.equal(answered.target, '2 d');
  assert.equal(answered.clock.waiting, false);
  assert.equal(answered.clock.breached, false);
  assert.equal(view.live, '/console/x/inbox/rows?q=ada');
});
