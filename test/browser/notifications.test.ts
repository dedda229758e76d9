// Notifications in a real browser, with a real SMTP server started here: an admin sees that email
// is on and chooses who is told of crisis requests; a staff member asks for every new request on
// their own page; a crisis request is emailed (the worker run by the test), one address refused
// for good, and the admin's page shows the sent and the failed email with the server's answer;
// the student's emails (a reply, a change of status) and an invitation are listed with their
// rule, below every kind of email in words.
// axe-core runs on every page and each is photographed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addReply } from '../../src/domain/helpdesk/conversation.ts';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { changeStatus } from '../../src/domain/helpdesk/staff-changes.ts';
import { createNotificationWorker } from '../../src/workers/notification-email.ts';
import { seedTenant } from '../helpers/app.ts';
import { seedStudents } from '../helpers/helpdesk.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { browserSuite } from './harness.ts';

let smtp: TestSmtpServer;
before(async () => {
  smtp = await startSmtpServer();
});
after(async () => {
  await smtp.close();
});

browserSuite(
  'console: notifications',
  (h) => {
    test('an admin chooses crisis recipients, a person opts in, and the emails show with their state', async () => {
      const { ctx } = h();
      const tenant = await seedTenant(ctx);
      const [studentId] = await seedStudents(ctx, tenant, 1);
      const admin = await h().person(tenant, { roles: ['admin'], name: 'Noor Admin' });
      const kai = await h().person(tenant, { roles: ['staff'], name: 'Kai Lee' });
      const gone = await h().person(tenant, { roles: ['staff'], name: 'Bounce Person' });
      const [goneEmail] = (
        await ctx.db.query<{ email: string }>('SELECT email FROM people WHERE id = $1', [gone.personId])
      ).rows.map((r) => r.email);

      await h().withPage(
        admin,
        async (page) => {
          await page.goto(`/console/${tenant.slug}/`);
          await page
            .getByRole('navigation')
            .getByRole('link', { name: 'Notifications', exact: true })
            .click();
          await page.locator('h1', { hasText: 'Notifications' }).waitFor();
          assert.match((await page.locator('#email-state').textContent()) ?? '', /Email on/);
          await page.getByRole('checkbox', { name: /Kai Lee/ }).check();
          await page.getByRole('checkbox', { name: /Bounce Person/ }).check();
          await page.getByRole('button', { name: 'Save who is told' }).click();
          await page.getByText('Saved: the people ticked are told of every new crisis request').waitFor();
          assert.ok(await page.getByRole('checkbox', { name: /Kai Lee/ }).isChecked());
        },
        'notifications-chosen',
      );

      await h().withPage(
        kai,
        async (page) => {
          await page.goto(`/console/${tenant.slug}/inbox`);
          await page.getByRole('navigation').getByRole('link', { name: 'Your notifications' }).click();
          await page.getByText('An admin has chosen you to be told of every new crisis request.').waitFor();
          await page.getByRole('checkbox', { name: 'Every new help request' }).check();
          await page.getByRole('button', { name: 'Save' }).click();
          await page.getByText('Your notification settings were saved.').waitFor();
          assert.ok(await page.getByRole('checkbox', { name: 'Every new help request' }).isChecked());
        },
        'notifications-own',
      );

      // One round of the notification worker over this institution.
      const notify = () =>
        createNotificationWorker({
          db: ctx.db,
          clock: ctx.deps.clock,
          smtp: { url: smtp.url, from: 'Support <support@example.edu>' },
          publicBaseUrl: h().base,
          institutionIds: [tenant.institutionId],
        }).runOnce();

      // A crisis request: Kai's email is delivered, Bounce Person's address is refused for good.
      smtp.refuse = (to) => (to.includes(goneEmail) ? 550 : undefined);
      try {
        const created = await createHelpRequest(ctx.deps, tenant.institutionId, {
          studentId,
          priority: 'crisis',
          summary: 'Private words that never leave the console',
        });
        const round = await notify();
        assert.deepEqual([round.sent, round.failed], [1, 1]);
        const [mail] = await smtp.waitFor(1);
        assert.match(mail.subject, /^New crisis request at /);
        assert.ok(mail.text.includes(`${h().base}/console/${tenant.slug}/inbox/${created.id}`));
        assert.ok(!mail.text.includes('Private words'));
      } finally {
        smtp.refuse = undefined;
      }

      // The student is told of a reply and of a change of status; a person is invited. Sent too.
      const [request] = (
        await ctx.db.query<{ id: string }>('SELECT id FROM help_requests WHERE student_id = $1', [studentId])
      ).rows;
      await addReply(ctx.deps, tenant.institutionId, request.id, {
        text: 'We can help',
        staff: 'Kai',
      });
      await changeStatus(ctx.deps, tenant.institutionId, request.id, {
        status: 'in_progress',
        staff: 'Kai',
      });
      const invited = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/people`, {
        email: 'new.colleague@example.edu',
        name: 'New Colleague',
        roles: ['staff'],
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const more = await notify();
      assert.equal(more.sent, 3);

      await h().withPage(
        admin,
        async (page) => {
          await page.goto(`/console/${tenant.slug}/notifications`);
          const kinds = (await page.locator('#email-kinds').textContent()) ?? '';
          assert.match(kinds, /Staff replied to the student\s*The student who raised the request/);
          assert.match(kinds, /The status of the request changed/);
          assert.match(kinds, /An invitation\s*A person just invited/);
          const rows = page.locator('#recent ~ .scroll tbody tr');
          assert.equal(await rows.count(), 5);
          const text = (await page.locator('#recent ~ .scroll tbody').textContent()) ?? '';
          assert.match(text, /Kai Lee[\s\S]*Sent/);
          assert.match(text, /Bounce Person[\s\S]*Failed[\s\S]*refused by the mail server: .*550/);
          assert.match(text, /New Colleague[\s\S]*Invitation to the console\s*Because an admin invited them/);
          assert.match(
            text,
            /Student[\s\S]*Staff replied \(to the student\)\s*Because they raised the request/,
          );
          assert.match(text, /Status changed \(to the student\)/);
          await h().check(page, 'notifications-admin');
          await page.getByRole('link', { name: 'Failed', exact: true }).click();
          await page.waitForURL(/state=failed/);
          assert.equal(await page.locator('#recent ~ .scroll tbody tr').count(), 1);
          await page.setViewportSize({ width: 390, height: 800 });
          await page.goto(`/console/${tenant.slug}/notifications`);
        },
        'notifications-admin-phone',
      );
    });
  },
  () => ({ smtpUrl: smtp.url, smtpFrom: 'Support <support@example.edu>' }),
);
