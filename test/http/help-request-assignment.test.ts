// Assignment to a person, by id: "assigned to me" is the person's own list whatever their name
// (two people with the same name, a rename), only active staff and admins of the institution can
// be assigned (each refusal with its code and field), the name accepted from token callers
// resolves to exactly one person, and no body of any shape is a 5xx.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase } from '../helpers/app.ts';
import {
  createHelpRequest,
  type HelpdeskTenant,
  readEvents,
  readHelpRequest,
  seedHelpdesk,
  staff,
} from '../helpers/helpdesk.ts';
import { invitePerson, personBrowser } from '../helpers/people.ts';

describeEachDatabase('help-request assignment to a person', (ctx) => {
  const url = (tenant: HelpdeskTenant, rest = '') =>
    `/admin/v1/institutions/${tenant.slug}/help-requests${rest}`;
  const ids = (res: { json(): { items: { id: string }[] } }) =>
    res
      .json()
      .items.map((r) => r.id)
      .sort();

  test('two people with the same name each see only their own requests under assigned=me', async () => {
    const tenant = await seedHelpdesk(ctx());
    const first = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Alex Kim' });
    const second = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Alex Kim' });
    const [a1, a2, b1] = [
      await createHelpRequest(ctx(), tenant),
      await createHelpRequest(ctx(), tenant),
      await createHelpRequest(ctx(), tenant),
    ];
    for (const r of [a1, a2])
      assert.equal(
        (await staff(ctx(), tenant, r.id, 'assignment', { assignee_id: first.personId })).statusCode,
        200,
      );
    // Signed in, the second one assigns themselves.
    const mine = await second.request('PUT', url(tenant, `/${b1.id}/assignment`), {
      assignee_id: second.personId,
    });
    assert.equal(mine.statusCode, 200, mine.body);
    assert.deepEqual(
      [mine.json().request.assigned_to, mine.json().request.assigned_to_id],
      ['Alex Kim', second.personId],
    );

    assert.deepEqual(ids(await first.request('GET', url(tenant, '?assigned=me'))), [a1.id, a2.id].sort());
    assert.deepEqual(ids(await second.request('GET', url(tenant, '?assigned=me'))), [b1.id]);
    assert.deepEqual(
      ids(await ctx().admin('GET', url(tenant, `?assigned=${first.personId}`))),
      [a1.id, a2.id].sort(),
    );
    // The name is no longer enough to say who: a token caller sending it is told so.
    const byName = await staff(ctx(), tenant, b1.id, 'assignment', { assignee: 'Alex Kim' });
    assert.equal(byName.statusCode, 400);
    assert.equal(byName.json().error, 'ambiguous_assignee');
    assert.equal(byName.json().field, 'assignee');
    assert.deepEqual(byName.json().candidates, [first.personId, second.personId].sort());
  });

  test('a renamed person keeps their assignments; responses, timeline and events name them', async () => {
    const tenant = await seedHelpdesk(ctx());
    const person = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Jo Before' });
    const request = await createHelpRequest(ctx(), tenant);
    // An existing token caller naming the one staff member with that name.
    const assigned = await staff(ctx(), tenant, request.id, 'assignment', { assignee: 'Jo Before' });
    assert.equal(assigned.statusCode, 200, assigned.body);
    assert.equal(assigned.json().request.assigned_to_id, person.personId);

    const renamed = await ctx().admin(
      'PATCH',
      `/admin/v1/institutions/${tenant.slug}/people/${person.personId}`,
      {
        name: 'Jo After',
      },
    );
    assert.equal(renamed.statusCode, 200, renamed.body);
    const mine = await person.request('GET', url(tenant, '?assigned=me'));
    assert.deepEqual(ids(mine), [request.id]);
    assert.equal(mine.json().items[0].assigned_to, 'Jo After');
    const read = await readHelpRequest(ctx(), tenant, request.id);
    assert.deepEqual([read.assigned_to, read.assigned_to_id], ['Jo After', person.personId]);
    // The audit entry records who assigned whom, under the name they had then.
    const entry = read.timeline.at(-1);
    assert.deepEqual(
      [entry?.action, entry?.actor, entry?.assigned_to, entry?.assigned_to_id],
      ['assign', 'Dana Staff', 'Jo Before', person.personId],
    );
    // Assigning the same person again changes nothing, whatever name they have now.
    const again = await staff(ctx(), tenant, request.id, 'assignment', { assignee_id: person.personId });
    assert.equal(again.json().changed, false);
    // Webhook payloads carry the assignment; a later change shows the current name.
    await staff(ctx(), tenant, request.id, 'status', { status: 'ack' });
    const events = (await readEvents(ctx(), tenant)).filter((e) => e.type === 'help_request.updated');
    assert.deepEqual(
      events.map((e) => [e.payload.data.assigned_to, e.payload.data.assigned_to_id]),
      [
        ['Jo Before', person.personId],
        ['Jo After', person.personId],
      ],
    );
    const unassigned = await staff(ctx(), tenant, request.id, 'assignment', { assignee_id: null });
    assert.deepEqual(
      [unassigned.json().request.assigned_to, unassigned.json().request.assigned_to_id],
      [null, null],
    );
    assert.deepEqual(ids(await person.request('GET', url(tenant, '?assigned=me'))), []);
  });

  test('only an active staff member or admin of the institution can be assigned, each refusal with its code', async () => {
    const tenant = await seedHelpdesk(ctx());
    const other = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), tenant);
    const removed = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Gone Person' });
    assert.equal(
      (await ctx().admin('DELETE', `/admin/v1/institutions/${tenant.slug}/people/${removed.id}`)).statusCode,
      204,
    );
    const foreign = await invitePerson(ctx(), other, { roles: ['staff'], name: 'Foreign Staff' });
    // A person row holding neither role cannot be made through the API; it is refused all the same.
    const { rows } = await ctx().db.query<{ id: string }>(
      `INSERT INTO people (institution_id, email, name, roles) VALUES ($1, $2, 'No Role', '{}') RETURNING id`,
      [tenant.institutionId, `no-role-${randomUUID()}@example.edu`],
    );
    const cases: [string, unknown, string, string][] = [
      ['a student', { assignee_id: tenant.studentIds[0] }, 'assignee_not_found', 'assignee_id'],
      ['another institution’s person', { assignee_id: foreign.id }, 'assignee_not_found', 'assignee_id'],
      ['an unknown id', { assignee_id: randomUUID() }, 'assignee_not_found', 'assignee_id'],
      ['a removed person', { assignee_id: removed.id }, 'assignee_removed', 'assignee_id'],
      [
        'a person without the staff or admin role',
        { assignee_id: rows[0].id },
        'assignee_not_staff',
        'assignee_id',
      ],
      ['not an id', { assignee_id: 'Sam' }, 'invalid_field', 'assignee_id'],
      ['a removed person by name', { assignee: 'Gone Person' }, 'assignee_not_found', 'assignee'],
      [
        'another institution’s person by name',
        { assignee: 'Foreign Staff' },
        'assignee_not_found',
        'assignee',
      ],
      ['both fields', { assignee_id: null, assignee: null }, 'invalid_request', 'assignee_id'],
      ['neither field', {}, 'missing_field', 'assignee_id'],
    ];
    for (const [what, body, code, field] of cases) {
      const res = await staff(ctx(), tenant, request.id, 'assignment', body as Record<string, unknown>);
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      assert.deepEqual([res.json().error, res.json().field], [code, field], what);
    }
    const read = await readHelpRequest(ctx(), tenant, request.id);
    assert.equal(read.assigned_to_id, null);
    assert.equal(read.version, 1, 'nothing was written');

    // The assignees listing offers exactly the active staff and admins.
    const admin = await invitePerson(ctx(), tenant, { roles: ['admin'], name: 'Ada Admin' });
    const listed = await ctx().admin('GET', url(tenant, '/assignees'));
    assert.deepEqual(
      listed.json().items.map((p: { id: string }) => p.id),
      [admin.id],
    );
  });

  test('property: no assignment body of any shape is a 5xx', async () => {
    const tenant = await seedHelpdesk(ctx());
    const request = await createHelpRequest(ctx(), tenant);
    const person = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Pat Staff' });
    const value = fc.oneof(
      fc.constant(null),
      fc.constant(person.id),
      fc.constant(tenant.studentIds[0]),
      fc.constant('Pat Staff'),
      fc.uuid(),
      fc.string({ maxLength: 300 }),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
    );
    const body = fc.oneof(
      fc.record({ assignee_id: value, assignee: value, staff: value }, { requiredKeys: [] }),
      fc.anything({ maxDepth: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await ctx().admin('PUT', url(tenant, `/${request.id}/assignment`), b);
        assert.ok(res.statusCode < 500, `${JSON.stringify(b)} -> ${res.statusCode} ${res.body}`);
        if (res.statusCode >= 400) assert.equal(typeof res.json().error, 'string');
      }),
      { numRuns: 150 },
    );
  });
});
