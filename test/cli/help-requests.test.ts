import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { seedStudents } from '../helpers/helpdesk.ts';
import { invitePerson } from '../helpers/people.ts';

// The CLI against a real listening server (PGlite).
describe('ssp help-requests, help-sync-secret and events (CLI)', () => {
  const server = cliServer();
  const { ssp } = server;

  test('creates, changes, lists and shows a help request; issues and rotates the sync secret', async () => {
    const tenant = await seedTenant(server.ctx, { rosterSecret: false });
    const [studentId] = await seedStudents(server.ctx, tenant, 1);
    const created = await ssp('help-requests', 'create', tenant.slug, studentId, '--priority', 'crisis');
    assert.equal(created.priority, 'crisis');
    await ssp('help-requests', 'status', tenant.slug, created.id, 'in_progress', '--staff', 'Dana');
    await ssp('help-requests', 'note', tenant.slug, created.id, 'Called back', '--staff', 'Dana');
    const replied = await ssp(
      'help-requests',
      'reply',
      tenant.slug,
      created.id,
      'We will call at 3',
      '--staff',
      'Dana',
    );
    assert.equal(replied.changed, true);
    assert.match(replied.message_id, /^[0-9a-f-]{36}$/);
    // The assignee is named by person id or by email (case-insensitive).
    const sam = await invitePerson(server.ctx, tenant, { roles: ['staff'], name: 'Sam' });
    const byEmail = await ssp(
      'help-requests',
      'assign',
      tenant.slug,
      created.id,
      sam.email.toUpperCase(),
      '--staff',
      'Dana',
    );
    assert.deepEqual([byEmail.request.assigned_to, byEmail.request.assigned_to_id], ['Sam', sam.id]);
    const byId = await ssp('help-requests', 'assign', tenant.slug, created.id, sam.id, '--staff', 'Dana');
    assert.equal(byId.changed, false);
    await assert.rejects(
      ssp('help-requests', 'assign', tenant.slug, created.id, 'nobody@example.edu', '--staff', 'Dana'),
      /no active staff member or admin with email/,
    );
    const unassigned = await ssp('help-requests', 'unassign', tenant.slug, created.id, '--staff', 'Dana');
    assert.equal(unassigned.request.assigned_to, null);
    const list = await ssp('help-requests', 'list', tenant.slug, '--status', 'in_progress');
    assert.deepEqual(
      list.items.map((r: { id: string }) => r.id),
      [created.id],
    );
    const shown = await ssp('help-requests', 'show', tenant.slug, created.id);
    assert.equal(shown.timeline.length, 6);

    assert.equal((await ssp('help-sync-secret', 'status', tenant.slug)).state, 'never_issued');
    const issued = await ssp('help-sync-secret', 'issue', tenant.slug);
    assert.match(issued.secret, /^ssp_sync_/);
    const rotated = await ssp('help-sync-secret', 'rotate', tenant.slug);
    assert.notEqual(rotated.secret, issued.secret);
    assert.deepEqual(await ssp('help-sync-secret', 'revoke', tenant.slug), { revoked: true });

    const events = await ssp('events', tenant.slug);
    assert.deepEqual(events.items.map((e: { type: string }) => e.type).slice(0, 2), [
      'help_request.created',
      'help_request.crisis',
    ]);
    const later = await ssp('events', tenant.slug, '--after-seq', String(events.items[1].seq));
    assert.equal(later.items.length, events.items.length - 2);
  });
});
