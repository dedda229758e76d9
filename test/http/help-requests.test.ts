import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, readEvents, readHelpRequest, seedHelpdesk, staff } from '../helpers/helpdesk.ts';
import { invitePerson } from '../helpers/people.ts';

describeEachDatabase('help requests (admin API)', (ctx) => {
  test('creates a request with any priority; crisis records created and crisis events', async () => {
    const tenant = await seedHelpdesk(ctx());
    const normal = await createHelpRequest(ctx(), tenant, { priority: 'low', summary: 'Lost my timetable' });
    assert.equal(normal.status, 'new');
    assert.equal(normal.priority, 'low');
    assert.equal(normal.version, 1);
    assert.equal(normal.external_ref, null);
    const crisis = await createHelpRequest(ctx(), tenant, { priority: 'crisis', student: 1 });

    const events = await readEvents(ctx(), tenant);
    assert.deepEqual(
      events.map((e) => [e.type, e.help_request_id]),
      [
        ['help_request.created', normal.id],
        ['help_request.created', crisis.id],
        ['help_request.crisis', crisis.id],
      ],
    );
    const data = events[2].payload.data;
    assert.equal(events[2].payload.type, 'help_request.crisis');
    assert.deepEqual(
      { ...data, updated_at: undefined },
      {
        help_request_id: crisis.id,
        status: 'new',
        priority: 'crisis',
        assigned_to: null,
        assigned_to_id: null,
        origin: 'platform',
        actor: 'Student app',
        version: 1,
        updated_at: undefined,
      },
    );
    assert.ok(!('external_ref' in data), 'external_ref is absent until set');
    const after = await readEvents(ctx(), tenant, events[1].seq);
    assert.equal(after.length, 1);
  });

  test('rejects a student of another institution or an unknown one', async () => {
    const a = await seedHelpdesk(ctx());
    const b = await seedHelpdesk(ctx());
    for (const studentId of [b.studentIds[0], randomUUID()]) {
      const res = await ctx().admin('POST', `/admin/v1/institutions/${a.slug}/help-requests`, {
        student_id: studentId,
      });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'student_not_found');
    }
    const badPriority = await ctx().admin('POST', `/admin/v1/institutions/${a.slug}/help-requests`, {
      student_id: a.studentIds[0],
      priority: 'urgent',
    });
    assert.equal(badPriority.statusCode, 400);
  });

  test('lists with status and priority filters, scoped to the institution', async () => {
    const tenant = await seedHelpdesk(ctx());
    const other = await seedHelpdesk(ctx());
    await createHelpRequest(ctx(), other, { priority: 'high' });
    const low = await createHelpRequest(ctx(), tenant, { priority: 'low' });
    const high = await createHelpRequest(ctx(), tenant, { priority: 'high' });
    const crisis = await createHelpRequest(ctx(), tenant, { priority: 'crisis' });
    await staff(ctx(), tenant, high.id, 'status', { status: 'resolved' });

    const list = async (query: string) =>
      (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests${query}`))
        .json()
        .items.map((r: { id: string }) => r.id)
        .sort();
    assert.deepEqual(await list(''), [low.id, high.id, crisis.id].sort());
    assert.deepEqual(await list('?status=resolved'), [high.id]);
    assert.deepEqual(await list('?status=new'), [low.id, crisis.id].sort());
    assert.deepEqual(await list('?priority=crisis'), [crisis.id]);
    assert.deepEqual(await list('?status=new&priority=high'), []);
    const bad = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests?status=open`);
    assert.equal(bad.statusCode, 400);
  });

  test('staff changes: status, note, assign and unassign, attributed to the staff member', async () => {
    const tenant = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), tenant);

    const toProgress = await staff(ctx(), tenant, request.id, 'status', { status: 'in_progress' });
    assert.equal(toProgress.statusCode, 200);
    assert.equal(toProgress.json().changed, true);
    assert.equal(toProgress.json().request.version, 2);
    const same = await staff(ctx(), tenant, request.id, 'status', { status: 'in_progress' });
    assert.equal(same.json().changed, false);
    assert.equal(same.json().request.version, 2);

    const resolved = await staff(ctx(), tenant, request.id, 'status', { status: 'resolved', staff: 'Ana' });
    assert.ok(resolved.json().request.resolved_at);
    const reopened = await staff(ctx(), tenant, request.id, 'status', { status: 'ack' });
    assert.equal(reopened.json().request.resolved_at, null);

    assert.equal(
      (await staff(ctx(), tenant, request.id, 'notes', { note: 'Called the student' })).statusCode,
      200,
    );
    const sam = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Sam Counsellor' });
    const assigned = await staff(ctx(), tenant, request.id, 'assignment', { assignee_id: sam.id });
    assert.equal(assigned.json().request.assigned_to, 'Sam Counsellor');
    assert.equal(assigned.json().request.assigned_to_id, sam.id);
    const unassigned = await staff(ctx(), tenant, request.id, 'assignment', { assignee_id: null });
    assert.equal(unassigned.json().request.assigned_to, null);
    assert.equal(unassigned.json().request.assigned_to_id, null);
    assert.equal(unassigned.json().request.version, 7);

    const read = await readHelpRequest(ctx(), tenant, request.id);
    assert.deepEqual(
      read.timeline.map((t) => [t.kind, t.action, t.actor, t.origin, t.from_status, t.to_status, t.version]),
      [
        ['audit', 'created', 'Student app', 'platform', null, 'new', 1],
        ['audit', 'status', 'Dana Staff', 'platform', 'new', 'in_progress', 2],
        ['audit', 'status', 'Ana', 'platform', 'in_progress', 'resolved', 3],
        ['audit', 'status', 'Dana Staff', 'platform', 'resolved', 'ack', 4],
        ['note', 'note', 'Dana Staff', 'platform', null, null, 5],
        ['audit', 'assign', 'Dana Staff', 'platform', null, null, 6],
        ['audit', 'unassign', 'Dana Staff', 'platform', null, null, 7],
      ],
    );
    assert.equal(read.timeline[4].note, 'Called the student');
    // The audit entry names who assigned (actor) whom (name and id).
    assert.equal(read.timeline[5].assigned_to, 'Sam Counsellor');
    assert.equal(read.timeline[5].assigned_to_id, sam.id);

    const events = (await readEvents(ctx(), tenant)).filter((e) => e.type === 'help_request.updated');
    assert.deepEqual(
      events.map((e) => [e.payload.data.version, e.payload.data.origin, e.payload.data.actor]),
      [
        [2, 'platform', 'Dana Staff'],
        [3, 'platform', 'Ana'],
        [4, 'platform', 'Dana Staff'],
        [5, 'platform', 'Dana Staff'],
        [6, 'platform', 'Dana Staff'],
        [7, 'platform', 'Dana Staff'],
      ],
    );
  });

  test("another institution's request is not found", async () => {
    const a = await seedHelpdesk(ctx());
    const b = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), b);
    const read = await ctx().admin('GET', `/admin/v1/institutions/${a.slug}/help-requests/${request.id}`);
    assert.equal(read.statusCode, 404);
    assert.equal(read.json().error, 'help_request_not_found');
    const change = await staff(ctx(), a, request.id, 'notes', { note: 'x' });
    assert.equal(change.statusCode, 404);
    const missing = await staff(ctx(), a, randomUUID(), 'status', { status: 'ack' });
    assert.equal(missing.json().error, 'help_request_not_found');
    const noStaff = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${b.slug}/help-requests/${request.id}/notes`,
      { note: 'x' },
    );
    assert.equal(noStaff.statusCode, 400);
    assert.equal(noStaff.json().field, 'staff');
  });

  test('deleting a student keeps its help requests and their history', async () => {
    const tenant = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), tenant);
    await ctx().db.query('DELETE FROM students WHERE id = $1', [tenant.studentIds[0]]);
    const read = await readHelpRequest(ctx(), tenant, request.id);
    assert.equal(read.timeline.length, 1);
    assert.equal((read as unknown as { student_id: string | null }).student_id, null);
  });

  test('the audit trail is append-only, enforced by the database', async () => {
    const tenant = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), tenant);
    await staff(ctx(), tenant, request.id, 'notes', { note: 'kept forever' });
    await assert.rejects(
      ctx().db.query("UPDATE help_request_timeline SET note = 'edited' WHERE help_request_id = $1", [
        request.id,
      ]),
      /append-only/,
    );
    await assert.rejects(
      ctx().db.query('DELETE FROM help_request_timeline WHERE help_request_id = $1', [request.id]),
      /append-only/,
    );
    await assert.rejects(ctx().db.query('TRUNCATE help_request_timeline'), /append-only/);
    const read = await readHelpRequest(ctx(), tenant, request.id);
    assert.equal(read.timeline.length, 2);
    assert.equal(read.timeline[1].note, 'kept forever');
  });
});
