// The conversation through the real interfaces: a staff member replies from the console (a form
// with CSRF and its own Idempotency-Key) and the admin API; the student reads the replies and status
// changes (never notes) on their request's page, is shown what is new since their last visit, and
// answers; limits on length and rate; another student's or institution's request is 404; an
// archived institution takes no message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conversationLimits } from '../../src/domain/helpdesk/conversation.ts';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import {
  describeEachDatabase,
  OPERATOR_TOKEN,
  type SeededTenant,
  seedTenant,
  type TestContext,
} from '../helpers/app.ts';
import { readHelpRequest } from '../helpers/helpdesk.ts';
import { personBrowser, postForm } from '../helpers/people.ts';
import { signedInStudent, textOf } from '../students/helpers.ts';

const NOTE = 'Internal: checked the file, possibly a fees issue';
const REPLY = 'Hello Sam, I have booked you a call with a counsellor tomorrow at 10:00.';

async function setUp(ctx: TestContext) {
  const tenant = await seedTenant(ctx);
  const student = await signedInStudent(ctx, tenant, { first_name: 'Sam' });
  const staff = await personBrowser(ctx, tenant, { roles: ['staff'], name: 'Kai Lee' });
  const request = await createHelpRequest(ctx.deps, tenant.institutionId, {
    studentId: student.studentId,
    summary: 'I am behind on my fees and worried',
    category: 'financial',
  });
  return { tenant, student, staff, request };
}

const timelineKinds = async (ctx: TestContext, tenant: SeededTenant, id: string) =>
  (await readHelpRequest(ctx, tenant, id)).timeline.map((t) => `${t.kind}:${t.action}`);

describeEachDatabase('the conversation: replies and answers', (ctx) => {
  test('a reply and a note are separate actions; the student reads the reply and the status, never the note', async () => {
    const { tenant, student, staff, request } = await setUp(ctx());
    const page = `/console/${tenant.slug}/inbox/${request.id}`;
    const html = (await staff.request('GET', page)).body;
    // Two forms, two buttons, the note's privacy stated.
    assert.match(html, /<form method="post" action="[^"]+\/reply" class="reply-form" novalidate>/);
    assert.match(html, /Send reply to the student/);
    assert.match(html, /Add internal note/);
    assert.match(textOf(html), /Only staff and admins see notes\. The student never does/);
    const key = /name="_idempotency_key" value="([^"]+)"/.exec(html)?.[1];
    assert.ok(key);

    assert.equal((await postForm(ctx(), staff, `${page}/notes`, { note: NOTE })).statusCode, 303);
    const sent = await postForm(ctx(), staff, `${page}/reply`, { text: REPLY, _idempotency_key: key });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.match(String(sent.headers.location), /done=reply_sent/);
    // The same form posted again (a double click): one reply.
    const again = await postForm(ctx(), staff, `${page}/reply`, { text: REPLY, _idempotency_key: key });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal((await postForm(ctx(), staff, `${page}/status`, { status: 'in_progress' })).statusCode, 303);

    const detail = await readHelpRequest(ctx(), tenant, request.id);
    const reply = detail.timeline.find((t) => t.kind === 'reply');
    assert.equal(reply?.note, REPLY);
    assert.equal(reply?.actor, 'Kai Lee');
    assert.deepEqual(await timelineKinds(ctx(), tenant, request.id), [
      'audit:created',
      'note:note',
      'reply:reply',
      'audit:status',
    ]);

    // The student's list marks it new until they open it.
    const list = textOf((await student.get('/app/requests')).body);
    assert.match(list, /Money and fees New/);
    const own = await student.get(`/app/requests/${request.id}`);
    assert.equal(own.statusCode, 200);
    const text = textOf(own.body);
    assert.match(text, /Student support/);
    assert.ok(text.includes(REPLY));
    assert.match(text, /Sent → Being worked on/);
    assert.doesNotMatch(text, /Internal: checked|Kai Lee/);
    assert.match(text, /There is news on this request since your last visit/);
    assert.doesNotMatch(textOf((await student.get('/app/requests')).body), /Money and fees New/);
    assert.doesNotMatch(textOf((await student.get(`/app/requests/${request.id}`)).body), /There is news/);
  });

  test('the student answers: into the timeline; blank, too long, resolved and rate limits are refused in words', async () => {
    const { tenant, student, request } = await setUp(ctx());
    const url = `/app/requests/${request.id}`;
    const form = (await student.get(url)).body;
    const key = /name="_idempotency_key" value="([^"]+)"/.exec(form)?.[1] ?? '';
    assert.match(form, /<label for="message">Write to student support<\/label>/);

    const blank = await student.post(`${url}/messages`, { message: '   ', _idempotency_key: key });
    assert.equal(blank.statusCode, 400);
    assert.match(textOf(blank.body), /Write your message before sending it/);
    const long = await student.post(`${url}/messages`, { message: 'x'.repeat(2001) });
    assert.equal(long.statusCode, 400);
    assert.match(textOf(long.body), /Keep your message under 2000 characters/);
    assert.equal(
      (await student.post(`${url}/messages`, { message: 'hi' }, { csrf: false })).statusCode,
      403,
      'CSRF is checked',
    );

    const sent = await student.post(`${url}/messages`, { message: 'Thank you', _idempotency_key: key });
    assert.equal(sent.statusCode, 303, sent.body);
    const twice = await student.post(`${url}/messages`, { message: 'Thank you', _idempotency_key: key });
    assert.equal(twice.headers['idempotent-replayed'], 'true');
    const answers = (await readHelpRequest(ctx(), tenant, request.id)).timeline.filter(
      (t) => t.kind === 'student_message',
    );
    assert.deepEqual(
      answers.map((t) => [t.note, t.origin]),
      [['Thank you', 'platform']],
    );
    assert.match(textOf((await student.get(url)).body), /You , .* Thank you/);

    // Rate: the hour's share of answers on one request, then 429 in words.
    for (let i = 1; i < conversationLimits.student_message; i++)
      assert.equal((await student.post(`${url}/messages`, { message: `more ${i}` })).statusCode, 303);
    const flood = await student.post(`${url}/messages`, { message: 'one too many' });
    assert.equal(flood.statusCode, 429);
    assert.match(textOf(flood.body), /You have sent many messages in the last hour/);

    // A resolved request takes no answer; the page says to ask again.
    await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests/${request.id}/status`, {
      status: 'resolved',
      staff: 'Kai Lee',
    });
    assert.match(textOf((await student.get(url)).body), /This request is resolved/);
    const late = await student.post(`${url}/messages`, { message: 'one more thing' });
    assert.equal(late.statusCode, 409);
    assert.match(textOf(late.body), /ask for help again/i);
  });

  test("another student's request, or another institution's, is 404 to read and to answer", async () => {
    const { tenant, request } = await setUp(ctx());
    const other = await signedInStudent(ctx(), tenant);
    assert.equal((await other.get(`/app/requests/${request.id}`)).statusCode, 404);
    const post = await other.post(`/app/requests/${request.id}/messages`, { message: 'not mine' });
    assert.equal(post.statusCode, 404);
    const foreign = await setUp(ctx());
    const api = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/help-requests/${foreign.request.id}/replies`,
      { text: 'wrong place', staff: 'Kai Lee' },
    );
    assert.equal(api.statusCode, 404);
    assert.equal(api.json().error, 'help_request_not_found');
    assert.equal(
      (
        await postForm(ctx(), foreign.staff, `/console/${tenant.slug}/inbox/${request.id}/reply`, {
          text: 'x',
        })
      ).statusCode,
      404,
    );
  });

  test('the admin API twin: reply with an Idempotency-Key, limits, and archiving', async () => {
    const { tenant, request } = await setUp(ctx());
    const url = `/admin/v1/institutions/${tenant.slug}/help-requests/${request.id}/replies`;
    const headers = { 'idempotency-key': `reply-${request.id}` };
    // The same reply under the same key, sent twice.
    const send = () =>
      ctx().request({
        method: 'POST',
        url,
        body: { text: REPLY, staff: 'Kai Lee' },
        headers,
        token: OPERATOR_TOKEN,
      });
    const first = await send();
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().changed, true);
    assert.match(first.json().message_id, /^[0-9a-f-]{36}$/);
    const replay = await send();
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json().message_id, first.json().message_id);
    assert.equal(
      (await readHelpRequest(ctx(), tenant, request.id)).timeline.filter((t) => t.kind === 'reply').length,
      1,
    );

    const blank = await ctx().admin('POST', url, { text: '  ', staff: 'Kai Lee' });
    assert.equal(blank.statusCode, 400);
    const long = await ctx().admin('POST', url, { text: 'x'.repeat(5001), staff: 'Kai Lee' });
    assert.equal(long.statusCode, 400);
    assert.equal((await ctx().admin('POST', url, { text: 'no staff' })).json().error, 'missing_field');

    assert.equal(
      (await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/archive`)).statusCode,
      200,
    );
    const archived = await ctx().admin('POST', url, { text: 'while archived', staff: 'Kai Lee' });
    assert.equal(archived.statusCode, 409);
    assert.equal(archived.json().error, 'institution_archived');
  });

  test('a request takes at most its hour of replies (429 rate_limited)', async () => {
    const { tenant, request } = await setUp(ctx());
    const url = `/admin/v1/institutions/${tenant.slug}/help-requests/${request.id}/replies`;
    for (let i = 0; i < conversationLimits.reply; i++)
      assert.equal(
        (await ctx().admin('POST', url, { text: `reply ${i}`, staff: 'Kai Lee' })).statusCode,
        200,
      );
    const refused = await ctx().admin('POST', url, { text: 'one too many', staff: 'Kai Lee' });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error, 'rate_limited');
  });

  test('console: a blank reply is shown next to the box; priorities read as words', async () => {
    const { tenant, staff, request } = await setUp(ctx());
    const page = `/console/${tenant.slug}/inbox/${request.id}`;
    const blank = await postForm(ctx(), staff, `${page}/reply`, { text: '   ' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /id="text-error">Write the reply before sending it/);
    const urgent = await createHelpRequest(ctx().deps, tenant.institutionId, {
      studentId: request.student_id ?? '',
      priority: 'high',
    });
    const html = textOf((await staff.request('GET', `/console/${tenant.slug}/inbox/${urgent.id}`)).body);
    assert.match(html, /Priority Urgent/);
  });
});
