// The notification pages without a browser: email off is said plainly (the notifications page and
// the health page), admins choose the crisis recipients with a form, each person sets their own
// choices, the recent notifications show their state and failure, staff cannot open the admins'
// page, and another institution's people are never offered or told.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addReply } from '../../src/domain/helpdesk/conversation.ts';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { changeStatus } from '../../src/domain/helpdesk/staff-changes.ts';
import { ownSettings, peopleSettings, recentOutbox } from '../../src/domain/notifications/settings.ts';
import { createNotificationWorker } from '../../src/workers/notification-email.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { seedStudents } from '../helpers/helpdesk.ts';
import { invitePerson, operatorBrowser, personBrowser, postForm } from '../helpers/people.ts';

describeEachDatabase('console: notifications (email off)', (ctx) => {
  /** One round of the notification worker over the institution, with email off. */
  const notificationRound = (institutionId: string) =>
    createNotificationWorker({
      db: ctx().db,
      clock: ctx().deps.clock,
      smtp: undefined,
      publicBaseUrl: 'http://localhost',
      institutionIds: [institutionId],
    }).runOnce();

  test('admins choose crisis recipients; the page says email is off and lists what was not sent', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Ada Admin' });
    const kai = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    const stranger = await invitePerson(ctx(), other, { roles: ['staff'], name: 'Other Person' });
    const page = `/console/${tenant.slug}/notifications`;

    const health = await admin.request('GET', `/console/${tenant.slug}/`);
    assert.equal(health.statusCode, 200);
    assert.match(health.body, /Notifications are off: no mail server is configured/);
    assert.match(health.body, new RegExp(`href="${page}">Notifications</a>`));

    const first = await admin.request('GET', page);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /Email off/);
    assert.match(first.body, /Notifications are off/);
    assert.match(first.body, /Kai Lee/);
    assert.doesNotMatch(first.body, /Other Person/);

    const saved = await postForm(ctx(), admin, page, [['crisis', kai.id]]);
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, `${page}?done=crisis_recipients_saved`);
    const people = await peopleSettings(ctx().deps.db, tenant.institutionId);
    assert.deepEqual(
      people.filter((p) => p.crisis).map((p) => p.name),
      ['Kai Lee'],
    );

    // Another institution's person is refused, and nothing changes.
    const refused = await postForm(ctx(), admin, page, [
      ['crisis', admin.personId],
      ['crisis', stranger.id],
    ]);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Crisis recipient 2 of the list is not a current staff member or admin/);
    assert.deepEqual(
      (await peopleSettings(ctx().deps.db, tenant.institutionId)).filter((p) => p.crisis).map((p) => p.name),
      ['Kai Lee'],
    );

    // A crisis request with email off: recorded, then marked not sent by the worker, and shown so.
    const [studentId] = await seedStudents(ctx(), tenant, 1);
    await createHelpRequest(ctx().deps, tenant.institutionId, { studentId, priority: 'crisis' });
    await notificationRound(tenant.institutionId);
    const after = await admin.request('GET', `${page}?state=skipped`);
    assert.equal(after.statusCode, 200);
    assert.match(after.body, /Kai Lee<br>/);
    assert.match(after.body, /Not sent/);
    assert.match(after.body, /email is off: SMTP_URL is not set/);
    assert.match(after.body, /New crisis request/);

    // Staff cannot open the admins' page; an unknown state filter says so and shows everything.
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    assert.equal((await staff.request('GET', page)).statusCode, 403);
    const bogus = await admin.request('GET', `${page}?state=bogus`);
    assert.equal(bogus.statusCode, 200);
    assert.match(bogus.body, /There is no state “bogus”: showing every state/);
  });

  test('an email queued before rules were recorded is shown with the rule its reason implies', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Ada Admin' });
    await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    await postForm(ctx(), admin, `/console/${tenant.slug}/notifications`, [['crisis', admin.personId]]);
    const [studentId] = await seedStudents(ctx(), tenant, 1);
    await createHelpRequest(ctx().deps, tenant.institutionId, { studentId, priority: 'crisis' });
    // As migration 0080 left the rows queued before it: no rule recorded.
    await ctx().db.query('UPDATE notifications SET rule = NULL WHERE institution_id = $1', [
      tenant.institutionId,
    ]);
    const [row] = await recentOutbox(ctx().deps.db, tenant.institutionId);
    assert.equal(row.reason, 'crisis');
    assert.equal(row.rule, 'crisis_recipient');
    const page = await admin.request('GET', `/console/${tenant.slug}/notifications`);
    assert.match(page.body, /an admin chose them to be told of crisis requests/);
  });

  test('every kind of email is on the page with its rule: students’ replies and status changes, invitations', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Ada Admin' });
    const page = `/console/${tenant.slug}/notifications`;
    // The rules, in words, before any email is sent: who receives each kind, and when it is not sent.
    const rules = (await admin.request('GET', page)).body;
    const kinds = rules.slice(
      rules.indexOf('id="email-kinds"'),
      rules.indexOf('</table>', rules.indexOf('id="email-kinds"')),
    );
    for (const words of [
      /Staff replied to the student.*The student who raised the request.*internal notes are never emailed.*When email is off, or the request has no student \(erased\): the student sees the reply at their next visit/s,
      /The status of the request changed.*The student who raised the request.*Every change of status/s,
      /An invitation.*A person just invited to the institution \(People\), with the sign-in link.*An admin invited them/s,
      /A new crisis request.*The people ticked below/s,
    ])
      assert.match(kinds, words);
    assert.match(rules, /Email is off, so none of these is sent now/);

    // An invitation, a reply and a change of status: each listed with its recipient and rule.
    await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'New Colleague', invitation: true });
    const [studentId] = await seedStudents(ctx(), tenant, 1);
    const request = await createHelpRequest(ctx().deps, tenant.institutionId, {
      studentId,
      summary: 'Wifi',
    });
    await addReply(ctx().deps, tenant.institutionId, request.id, {
      text: 'On it',
      staff: 'Kai',
    });
    await changeStatus(ctx().deps, tenant.institutionId, request.id, {
      status: 'in_progress',
      staff: 'Kai',
    });
    await notificationRound(tenant.institutionId);
    const body = (await admin.request('GET', page)).body;
    const recent = body.slice(body.indexOf('id="recent"'));
    assert.match(
      recent,
      /New Colleague<br>.*Invitation to the console<br><span class="muted">Because an admin invited them to the console<\/span><\/td>/s,
    );
    assert.match(
      recent,
      /<span class="badge">Student<\/span>.*Staff replied \(to the student\)<br><span class="muted">Because they raised the request/s,
    );
    assert.match(recent, /Status changed \(to the student\)/);
    assert.equal(recent.match(/warn">Not sent</g)?.length, 3, 'email off: all three skipped');
    assert.ok(recent.includes(`/console/${tenant.slug}/inbox/${request.id}`));
  });

  test('each person sets their own choices; the operator is told they have none', async () => {
    const tenant = await seedTenant(ctx());
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    const page = `/console/${tenant.slug}/me/notifications`;
    const shown = await staff.request('GET', page);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, new RegExp(`href="${page}"[^>]*>Your notifications</a>`));
    assert.doesNotMatch(shown.body, new RegExp(`href="/console/${tenant.slug}/notifications"`));
    assert.match(shown.body, /Email off/);
    assert.match(shown.body, /You are not among the people told of new crisis requests/);

    const saved = await postForm(ctx(), staff, page, [['assigned_to_me', 'yes']]);
    assert.equal(saved.statusCode, 303);
    const own = await ownSettings(ctx().deps.db, tenant.institutionId, staff.personId);
    assert.deepEqual(own, { crisis: false, any_new_request: false, assigned_to_me: true });
    const again = await staff.request('GET', `${page}?done=own_notifications_saved`);
    assert.match(again.body, /Your notification settings were saved/);
    assert.match(again.body, /name="assigned_to_me" value="yes" checked/);

    // The same through the admin API with the session.
    const api = await staff.request('PUT', `/admin/v1/institutions/${tenant.slug}/me/notifications`, {
      any_new_request: true,
      assigned_to_me: false,
    });
    assert.equal(api.statusCode, 200, api.body);
    assert.deepEqual(api.json(), {
      email: { enabled: false, from: null },
      crisis: false,
      any_new_request: true,
      assigned_to_me: false,
    });

    const operator = await operatorBrowser(ctx());
    const forOperator = await operator.request('GET', page);
    assert.equal(forOperator.statusCode, 200);
    assert.match(forOperator.body, /the operator has none/);
    const apiOperator = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/me/notifications`);
    assert.equal(apiOperator.statusCode, 409);
    assert.equal(apiOperator.json().error, 'not_a_person');
  });
});
