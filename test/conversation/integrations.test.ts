// The conversation beyond the request page: the message events and who receives them (an endpoint
// subscribed to every type does not start receiving people's words; one listing the type does,
// with the words), a help desk's public reply through help-sync (off until an admin turns it on;
// the other actions unchanged), and saved replies (admins keep them, audited; staff insert one
// into the reply box, which sends nothing until they send it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { listSavedReplies } from '../../src/domain/saved-replies/saved-replies.ts';
import { eventCatalogue } from '../../src/domain/webhooks/catalogue.ts';
import { describeEachDatabase } from '../helpers/app.ts';
import { helpSync, readEvents, readHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { personBrowser, postForm } from '../helpers/people.ts';
import { signedInStudent, textOf } from '../students/helpers.ts';

test('the catalogue lists the message events with schemas their examples meet', () => {
  const entries = eventCatalogue();
  for (const type of ['help_request.reply', 'help_request.student_message']) {
    const entry = entries.find((e) => e.type === type);
    assert.ok(entry, type);
    assert.ok(Value.Check(entry.schema as never, entry.example), `${type} example meets its schema`);
    assert.match(entry.description, /only to endpoints that list this type/);
    assert.equal(
      typeof (entry.example as { data: { message: { text: string } } }).data.message.text,
      'string',
    );
  }
});

describeEachDatabase(
  'the conversation: events, help-sync replies, saved replies',
  (ctx) => {
    test('message events carry the words and reach only endpoints that list them', async () => {
      const tenant = await seedHelpdesk(ctx());
      const student = await signedInStudent(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`;
      const everything = (await ctx().admin('POST', base, { url: 'http://127.0.0.1:9/all' })).json();
      const listed = (
        await ctx().admin('POST', base, {
          url: 'http://127.0.0.1:9/desk',
          event_types: ['help_request.reply', 'help_request.student_message'],
        })
      ).json();
      const request = await createHelpRequest(ctx().deps, tenant.institutionId, {
        studentId: student.studentId,
        summary: 'Locked out of the library',
      });
      await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests/${request.id}/replies`, {
        text: 'Your card is fixed now.',
        staff: 'Kai Lee',
      });
      await student.post(`/app/requests/${request.id}/messages`, { message: 'It works, thanks!' });

      const events = (await readEvents(ctx(), tenant)).filter((e) => e.help_request_id === request.id);
      assert.deepEqual(
        events.map((e) => e.type),
        [
          'help_request.created',
          'help_request.updated',
          'help_request.reply',
          'help_request.updated',
          'help_request.student_message',
        ],
      );
      const reply = events[2].payload.data as {
        message: { kind: string; text: string };
        actor: string;
        version: number;
      };
      assert.deepEqual(
        [reply.message.kind, reply.message.text, reply.actor, reply.version],
        ['reply', 'Your card is fixed now.', 'Kai Lee', 2],
      );
      const answer = events[4].payload.data as { message: { kind: string; text: string } };
      assert.deepEqual([answer.message.kind, answer.message.text], ['student_message', 'It works, thanks!']);
      const schema = eventCatalogue().find((e) => e.type === 'help_request.reply')?.schema;
      assert.ok(Value.Check(schema as never, events[2].payload));
      // The words never ride on help_request.updated.
      assert.ok(!JSON.stringify(events[1].payload).includes('fixed now'));

      const { rows } = await ctx().db.query<{ endpoint_id: string; type: string }>(
        `SELECT d.endpoint_id, e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE e.help_request_id = $1 ORDER BY e.seq`,
        [request.id],
      );
      const typesOf = (id: string) => rows.filter((r) => r.endpoint_id === id).map((r) => r.type);
      assert.deepEqual(typesOf(everything.id), [
        'help_request.created',
        'help_request.updated',
        'help_request.updated',
      ]);
      assert.deepEqual(typesOf(listed.id), ['help_request.reply', 'help_request.student_message']);
    });

    test('help-sync `reply`: off until an admin turns it on; then a public reply the student reads', async () => {
      const tenant = await seedHelpdesk(ctx());
      const student = await signedInStudent(ctx(), tenant);
      const request = await createHelpRequest(ctx().deps, tenant.institutionId, {
        studentId: student.studentId,
        summary: 'Visa letter',
      });
      const row = { help_request_id: request.id, action: 'reply', note: 'Your letter is ready at the desk.' };
      const off = await helpSync(ctx(), tenant.syncSecret, { institution: tenant.slug, updates: [row] });
      assert.equal(off.statusCode, 200);
      assert.equal(off.json().results[0].error, 'replies_not_enabled');
      assert.equal((await readHelpRequest(ctx(), tenant, request.id)).version, 1);

      const settings = `/admin/v1/institutions/${tenant.slug}/help-sync-settings`;
      assert.deepEqual((await ctx().admin('GET', settings)).json(), { public_replies: false });
      assert.equal((await ctx().admin('PUT', settings, { public_replies: true })).statusCode, 200);
      const on = await helpSync(ctx(), tenant.syncSecret, {
        institution: tenant.slug,
        actor: 'Service Desk',
        updates: [
          row,
          { help_request_id: request.id, action: 'note', note: 'internal: printed' },
          { help_request_id: request.id, action: 'reply' },
          { help_request_id: request.id, action: 'reply', note: 'x'.repeat(5001) },
        ],
      });
      const results = on.json().results;
      assert.deepEqual(
        results.map((r: { ok: boolean; error?: string; changed?: boolean }) => r.error ?? r.changed),
        [true, true, 'reply_required', 'reply_too_long'],
      );
      const timeline = (await readHelpRequest(ctx(), tenant, request.id)).timeline;
      const reply = timeline.find((t) => t.kind === 'reply');
      assert.deepEqual(
        [reply?.origin, reply?.actor, reply?.note],
        ['integration', 'Service Desk', 'Your letter is ready at the desk.'],
      );
      // The note keeps its meaning: an audit entry and a staff-only note.
      assert.ok(timeline.some((t) => t.kind === 'note' && t.note === 'internal: printed'));
      const page = textOf((await student.get(`/app/requests/${request.id}`)).body);
      assert.ok(page.includes('Your letter is ready at the desk.'));
      assert.ok(!page.includes('internal: printed'));
      const types = (await readEvents(ctx(), tenant))
        .filter((e) => e.help_request_id === request.id)
        .map((e) => e.type);
      assert.ok(types.includes('help_request.reply'));
    });

    test('saved replies: admins keep them (audited), staff insert one and edit it before sending', async () => {
      const tenant = await seedHelpdesk(ctx());
      const student = await signedInStudent(ctx(), tenant);
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Ada Admin' });
      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
      const page = `/console/${tenant.slug}/saved-replies`;
      assert.equal((await staff.request('GET', page)).statusCode, 403);

      const blank = await postForm(ctx(), admin, page, { name: '', body: '' });
      assert.equal(blank.statusCode, 400);
      assert.match(blank.body, /id="name-error">Give the saved reply a name/);
      const wording = 'If you are in danger now, call 999. Our team is back at 08:00.';
      const added = await postForm(ctx(), admin, page, { name: 'Out of hours: crisis', body: wording });
      assert.equal(added.statusCode, 303, added.body);
      const same = await postForm(ctx(), admin, page, { name: 'OUT OF HOURS: CRISIS', body: 'again' });
      assert.equal(same.statusCode, 409);
      assert.match(textOf(same.body), /already called/);
      const [saved] = await listSavedReplies(ctx().db, tenant.institutionId);
      const edited = await postForm(ctx(), admin, `${page}/${saved.id}`, {
        name: 'Out of hours: crisis',
        body: `${wording} `,
      });
      assert.equal(edited.statusCode, 303);
      const audit = await ctx().db.query<{ action: string }>(
        `SELECT action FROM admin_audit WHERE institution_id = $1 AND action LIKE '%saved-replies%' ORDER BY at`,
        [tenant.institutionId],
      );
      assert.deepEqual(
        audit.rows.map((r) => r.action),
        ['POST /console/:slug/saved-replies', 'POST /console/:slug/saved-replies/:id'],
      );

      const request = await createHelpRequest(ctx().deps, tenant.institutionId, {
        studentId: student.studentId,
        priority: 'crisis',
      });
      const url = `/console/${tenant.slug}/inbox/${request.id}`;
      const html = (await staff.request('GET', url)).body;
      assert.match(html, /<option value="[0-9a-f-]{36}">Out of hours: crisis<\/option>/);
      const key = /name="_idempotency_key" value="([^"]+)"/.exec(html)?.[1] ?? '';
      const inserted = await postForm(ctx(), staff, `${url}/reply/insert`, {
        text: 'Hello Sam,',
        saved_reply: saved.id,
        _idempotency_key: key,
      });
      assert.equal(inserted.statusCode, 200);
      assert.ok(textOf(inserted.body).includes(`Hello Sam, ${wording}`));
      assert.ok(inserted.body.includes(`value="${key}"`), 'the form keeps its key');
      assert.equal((await readHelpRequest(ctx(), tenant, request.id)).timeline.length, 1, 'nothing sent yet');
      const sent = await postForm(ctx(), staff, `${url}/reply`, {
        text: `Hello Sam,\n\n${wording} I will call you at 08:05.`,
        _idempotency_key: key,
      });
      assert.equal(sent.statusCode, 303);
      assert.ok(
        textOf((await student.get(`/app/requests/${request.id}`)).body).includes('I will call you at 08:05.'),
      );

      // The admin API's twins: staff read them, admins change them.
      const api = `/admin/v1/institutions/${tenant.slug}/saved-replies`;
      const listed = await staff.request('GET', api);
      assert.equal(listed.statusCode, 200);
      assert.deepEqual(
        listed.json().items.map((r: { name: string }) => r.name),
        ['Out of hours: crisis'],
      );
      assert.equal((await staff.request('POST', api, { name: 'Mine', body: 'text' })).statusCode, 403);
      const viaApi = await ctx().admin('POST', api, { name: 'Exam stress', body: 'Here is what helps…' });
      assert.equal(viaApi.statusCode, 201, viaApi.body);
      assert.equal((await ctx().admin('POST', api, { name: 'exam STRESS', body: 'x' })).statusCode, 409);
      assert.equal((await ctx().admin('POST', api, { name: ' ', body: 'x' })).statusCode, 400);
      const patched = await ctx().admin('PATCH', `${api}/${viaApi.json().id}`, {
        name: 'Exams',
        body: 'Shorter.',
      });
      assert.equal(patched.json().name, 'Exams');
      assert.equal((await ctx().admin('DELETE', `${api}/${viaApi.json().id}`)).statusCode, 204);
      assert.equal((await ctx().admin('DELETE', `${api}/${viaApi.json().id}`)).statusCode, 404);

      assert.equal((await postForm(ctx(), admin, `${page}/${saved.id}/delete`, {})).statusCode, 303);
      assert.deepEqual(await listSavedReplies(ctx().db, tenant.institutionId), []);
      assert.equal((await admin.request('GET', `${page}/${saved.id}`)).statusCode, 404);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
