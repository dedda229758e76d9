// Emails of the conversation, through a real SMTP server (smtp-server, parsed with mailparser): the
// student is told of a staff reply and of a status change (a link to their request, never the
// words); the assignee, or else the institution's people for that priority, of the student's
// answer; an invited person gets the sign-in link; every email states the rule that made it (a
// person who asked for every new request is no longer told that an admin chose them).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addReply } from '../../src/domain/helpdesk/conversation.ts';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { addNote, assign, changeStatus } from '../../src/domain/helpdesk/staff-changes.ts';
import { setCrisisRecipients, setOwnSettings } from '../../src/domain/notifications/settings.ts';
import { createNotificationWorker } from '../../src/workers/notification-email.ts';
import { type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { MAIL_BASE, notificationWorker, withMailApp } from '../helpers/mail-app.ts';
import { invitePerson } from '../helpers/people.ts';
import type { TestSmtpServer } from '../helpers/smtp.ts';
import { signedInStudent } from '../students/helpers.ts';

const BASE = MAIL_BASE;
const REPLY = 'Your counselling call is booked for Tuesday';
const ANSWER = 'Thank you, Tuesday suits me';

for (const kind of databaseKinds()) {
  describe(`conversation emails [${kind}]`, () => {
    let ctx: TestContext;
    let smtp: TestSmtpServer;
    withMailApp(kind, {}, (app) => {
      ({ ctx, smtp } = app);
    });

    const worker = (tenant: SeededTenant) =>
      notificationWorker(ctx, smtp, tenant, { clock: { now: () => new Date() } });

    /** Runs the worker and returns the emails it sent. */
    async function send(tenant: SeededTenant, expected: number) {
      const before = smtp.received.length;
      const round = await worker(tenant).runOnce();
      assert.equal(round.sent, expected, JSON.stringify(round));
      return (await smtp.waitFor(before + expected)).slice(before);
    }

    const noWords = (mail: { subject: string; text: string; html: string }, words: string[]) => {
      for (const w of words) {
        assert.ok(!mail.subject.includes(w) && !mail.text.includes(w) && !mail.html.includes(w), w);
      }
    };

    test('the student is told of a reply and of a status change, with a link and never the words', async () => {
      const tenant = await seedTenant(ctx);
      const student = await signedInStudent(ctx, tenant, { first_name: 'Zephyrine' });
      const request = await createHelpRequest(ctx.deps, tenant.institutionId, {
        studentId: student.studentId,
        summary: 'I feel overwhelmed',
      });
      await send(tenant, 0);
      await addNote(ctx.deps, tenant.institutionId, request.id, {
        note: 'internal',
        staff: 'Kai',
      });
      await addReply(ctx.deps, tenant.institutionId, request.id, {
        text: REPLY,
        staff: 'Kai Lee',
      });
      await changeStatus(ctx.deps, tenant.institutionId, request.id, {
        status: 'in_progress',
        staff: 'Kai Lee',
      });
      const mails = await send(tenant, 2);
      assert.deepEqual(
        mails.map((m) => [m.to[0], m.subject]),
        [
          [student.email, `Student support at Institution ${tenant.slug} replied to your request`],
          [student.email, `Your help request at Institution ${tenant.slug} was updated`],
        ],
      );
      for (const mail of mails) {
        assert.ok(mail.text.includes(`${BASE}/app/requests/${request.id}#conversation`), mail.text);
        assert.match(mail.text, /because you asked Institution .* for help/);
        noWords(mail, [REPLY, 'overwhelmed', 'Zephyrine', 'Kai Lee', 'internal']);
      }
    });

    test("the student's answer tells the assignee; unassigned, the people for its priority, each with their rule", async () => {
      const tenant = await seedTenant(ctx);
      const student = await signedInStudent(ctx, tenant);
      const assignee = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Assigned Person' });
      const chosen = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Chosen One' });
      const eager = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Eager Beaver' });
      await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Quiet Person' });
      await setCrisisRecipients(ctx.deps, tenant.institutionId, [chosen.id]);
      await setOwnSettings(ctx.deps, tenant.institutionId, eager.id, {
        any_new_request: true,
        assigned_to_me: false,
      });
      const normal = await createHelpRequest(ctx.deps, tenant.institutionId, {
        studentId: student.studentId,
        summary: 'Timetable clash',
      });
      await assign(ctx.deps, tenant.institutionId, normal.id, {
        assignee: { id: assignee.id },
        staff: 'Chosen One',
      });
      const crisis = await createHelpRequest(ctx.deps, tenant.institutionId, {
        studentId: student.studentId,
        priority: 'crisis',
      });
      // The new requests' own emails first: the rule of each is stated.
      const raised = await send(tenant, 3);
      const eagerCrisis = raised.find((m) => m.to[0] === eager.email && /crisis/.test(m.subject));
      assert.ok(eagerCrisis);
      assert.match(eagerCrisis.text, /because you asked to be told of every new request/);
      assert.doesNotMatch(eagerCrisis.text, /an admin/);
      const chosenCrisis = raised.find((m) => m.to[0] === chosen.email);
      assert.match(chosenCrisis?.text ?? '', /an admin of Institution .* chose you/);

      for (const id of [normal.id, crisis.id]) {
        const res = await student.post(`/app/requests/${id}/messages`, { message: ANSWER });
        assert.equal(res.statusCode, 303, res.body);
      }
      const mails = await send(tenant, 3);
      const to = (address: string) => mails.filter((m) => m.to[0] === address);
      assert.equal(to(assignee.email).length, 1);
      assert.match(to(assignee.email)[0].text, /because the request is assigned to you/);
      assert.ok(to(assignee.email)[0].text.includes(`${BASE}/console/${tenant.slug}/inbox/${normal.id}`));
      // The unassigned crisis request: its crisis recipient and whoever asked for every request.
      assert.match(
        to(chosen.email)[0].text,
        /chose you to be told of crisis requests, and the request is assigned to no one/,
      );
      assert.match(
        to(eager.email)[0].text,
        /asked to be told of every new request, and the request is assigned to no one/,
      );
      for (const mail of mails) {
        assert.equal(mail.subject, `A student wrote on a help request at Institution ${tenant.slug}`);
        noWords(mail, [ANSWER, 'Timetable']);
      }
    });

    test('an invited person is emailed the sign-in link; a student without email on is told at the next visit', async () => {
      const tenant = await seedTenant(ctx);
      const invited = await invitePerson(ctx, tenant, {
        roles: ['staff'],
        name: 'New Colleague',
        invitation: true,
      });
      const [mail] = await send(tenant, 1);
      assert.equal(mail.to[0], invited.email);
      assert.equal(mail.subject, `You are invited to Institution ${tenant.slug}'s student support console`);
      assert.ok(mail.text.includes(`${BASE}/auth/${tenant.slug}/sign-in`), mail.text);
      assert.match(mail.text, /because an admin of Institution .* invited you/);

      // Email off: the outbox row is not sent, and the student's list shows the request as new.
      const student = await signedInStudent(ctx, tenant);
      const request = await createHelpRequest(ctx.deps, tenant.institutionId, {
        studentId: student.studentId,
        summary: 'Wifi',
      });
      await student.get(`/app/requests/${request.id}`);
      await addReply(ctx.deps, tenant.institutionId, request.id, { text: REPLY, staff: 'Kai' });
      const off = createNotificationWorker({
        db: ctx.db,
        clock: { now: () => new Date() },
        smtp: undefined,
        publicBaseUrl: BASE,
        institutionIds: [tenant.institutionId],
      });
      assert.equal((await off.runOnce()).skipped, 1);
      const list = await student.get('/app/requests');
      assert.match(list.body, /class="new-tag">New</);
    });
  });
}
