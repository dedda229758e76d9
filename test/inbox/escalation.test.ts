// Crisis escalation end to end, on the injected clock: a crisis request nobody acknowledges within
// the window escalates once (an email through the notifications outbox to a real SMTP server, a
// timeline entry, the banner on every console page, a line on the health page) and never again,
// with several workers too; an acknowledged one never escalates; the admins' list and window apply.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createEscalationWorker } from '../../src/workers/escalation.ts';
import type { TestContext } from '../helpers/app.ts';
import { testClock } from '../helpers/clock.ts';
import { databaseKinds } from '../helpers/db.ts';
import { createHelpRequest, type HelpdeskTenant, seedHelpdesk, staff } from '../helpers/helpdesk.ts';
import { notificationWorker, withMailApp } from '../helpers/mail-app.ts';
import { requestCost } from '../helpers/page-load.ts';
import { invitePerson, personBrowser } from '../helpers/people.ts';
import type { TestSmtpServer } from '../helpers/smtp.ts';

const SUMMARY = 'Please help, I am not safe tonight';
const MINUTE = 60_000;

for (const kind of databaseKinds()) {
  describe(`crisis escalation [${kind}]`, () => {
    const clock = testClock();
    let ctx: TestContext;
    let smtp: TestSmtpServer;
    withMailApp(kind, { clock }, (app) => {
      ({ ctx, smtp } = app);
    });

    const workerFor = (tenant: HelpdeskTenant) =>
      createEscalationWorker({ db: ctx.db, clock, institutionIds: [tenant.institutionId] });
    const mailerFor = (tenant: HelpdeskTenant) => notificationWorker(ctx, smtp, tenant, { clock });
    const escalationEmails = async (tenant: HelpdeskTenant) =>
      (
        await ctx.db.query<{ person_id: string }>(
          `SELECT person_id FROM notifications WHERE institution_id = $1 AND reason = 'escalation' ORDER BY person_id`,
          [tenant.institutionId],
        )
      ).rows.map((r) => r.person_id);
    const timeline = async (tenant: HelpdeskTenant, id: string) =>
      (await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests/${id}`)).json()
        .timeline as {
        action: string;
        note: string | null;
      }[];

    test('unacknowledged past the window: escalates once, emails every admin (no list), banner until picked up', async () => {
      const tenant = await seedHelpdesk(ctx);
      const admin = await invitePerson(ctx, tenant, { roles: ['admin'], name: 'Ada Admin' });
      const other = await invitePerson(ctx, tenant, { roles: ['admin', 'staff'], name: 'Bo Both' });
      await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Sol Staff' });
      const browser = await personBrowser(ctx, tenant, { roles: ['staff'] });
      const request = await createHelpRequest(ctx, tenant, { priority: 'crisis', summary: SUMMARY });
      const worker = workerFor(tenant);

      clock.advance(14 * MINUTE + 59_000);
      assert.equal((await worker.runOnce()).escalated, 0, 'not before the 15-minute window ends');
      assert.doesNotMatch(
        (await browser.request('GET', `/console/${tenant.slug}/inbox`)).body,
        /escalation-banner/,
      );

      clock.advance(1_000);
      assert.equal((await worker.runOnce()).escalated, 1);
      assert.equal((await worker.runOnce()).escalated, 0, 'never twice');
      clock.advance(60 * MINUTE);
      assert.equal((await worker.runOnce()).escalated, 0, 'never twice, however late');

      assert.deepEqual(await escalationEmails(tenant), [admin.id, other.id].sort());
      const entry = (await timeline(tenant, request.id)).filter((e) => e.action === 'escalated');
      assert.equal(entry.length, 1);
      assert.match(
        entry[0].note ?? '',
        /within 15 minutes.*every admin, as no escalation list is chosen \(2 people\)/,
      );

      // The email: a nudge with a link, the rule that sent it, none of the student's words.
      const before = smtp.received.length;
      await mailerFor(tenant).runOnce();
      const mails = (await smtp.waitFor(before + 2, 10_000)).slice(before);
      assert.deepEqual(mails.map((m) => m.to[0]).sort(), [admin.email, other.email].sort());
      for (const mail of mails) {
        assert.match(mail.subject, /^Crisis request not picked up at Institution /);
        assert.match(mail.text, new RegExp(`/console/${tenant.slug}/inbox/${request.id}`));
        assert.match(
          mail.text,
          /you are an admin of .* and no escalation list is chosen: a crisis request that nobody assigns, answers or moves out of New within 15 minutes is escalated once/,
        );
        assert.doesNotMatch(`${mail.subject}\n${mail.text}\n${mail.html}`, /not safe|Student 1/);
      }

      // The banner on every console page of the institution, and the health page's line.
      for (const page of ['inbox', 'students', 'me/notifications']) {
        const body = (await browser.request('GET', `/console/${tenant.slug}/${page}`)).body;
        assert.match(body, /A crisis request is waiting for someone to pick it up/, page);
        assert.match(body, new RegExp(`/console/${tenant.slug}/inbox/${request.id}`), page);
      }
      // A form refused on a POST is the page again, with its errors: the banner is on it too.
      const post = async (as: typeof browser, url: string, form: Record<string, string>) =>
        (await requestCost(ctx, as, `/console/${tenant.slug}/${url}`, form)).response;
      const refused = await post(browser, `inbox/${request.id}/notes`, { note: '' });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /Write the note before adding it/);
      assert.match(refused.body, /A crisis request is waiting for someone to pick it up/, 'a refused POST');
      const adminBrowser = await personBrowser(ctx, tenant, { roles: ['admin'] });
      const refusedAdmin = await post(adminBrowser, 'people', {
        email: 'not an email',
        name: '',
        roles: 'staff',
      });
      assert.equal(refusedAdmin.statusCode, 400);
      assert.match(
        refusedAdmin.body,
        /A crisis request is waiting for someone to pick it up/,
        'an admin form',
      );
      const health = (await adminBrowser.request('GET', `/console/${tenant.slug}/`)).body;
      assert.match(health, /1 escalated crisis request waits for someone to pick it up/);
      const audit = (await adminBrowser.request('GET', `/console/${tenant.slug}/audit?kind=help_requests`))
        .body;
      assert.match(audit, /Escalated: a crisis request nobody picked up within the window/);

      // Picked up: assigned. The banner goes; nothing escalates again.
      assert.equal(
        (await staff(ctx, tenant, request.id, 'assignment', { assignee_id: other.id })).statusCode,
        200,
      );
      assert.doesNotMatch(
        (await browser.request('GET', `/console/${tenant.slug}/inbox`)).body,
        /escalation-banner/,
      );
      assert.doesNotMatch(
        (await adminBrowser.request('GET', `/console/${tenant.slug}/`)).body,
        /escalated crisis/,
      );
    });

    test('acknowledged in time (assigned, moved out of New, acknowledged by the help desk) never escalates', async () => {
      const tenant = await seedHelpdesk(ctx);
      const admin = await invitePerson(ctx, tenant, { roles: ['admin'] });
      const assigned = await createHelpRequest(ctx, tenant, { priority: 'crisis' });
      const moved = await createHelpRequest(ctx, tenant, { priority: 'crisis' });
      const synced = await createHelpRequest(ctx, tenant, { priority: 'crisis' });
      const noted = await createHelpRequest(ctx, tenant, { priority: 'crisis' });
      const normal = await createHelpRequest(ctx, tenant, { priority: 'normal' });
      clock.advance(5 * MINUTE);
      await staff(ctx, tenant, assigned.id, 'assignment', { assignee_id: admin.id });
      await staff(ctx, tenant, moved.id, 'status', { status: 'in_progress' });
      const sync = await ctx.request({
        method: 'POST',
        url: '/api/integrations/help-sync',
        token: tenant.syncSecret,
        body: {
          institution: tenant.slug,
          updates: [{ help_request_id: synced.id, action: 'acknowledge', external_ref: 'T-1' }],
        },
      });
      assert.equal(sync.statusCode, 200, sync.body);
      // A note is not an acknowledgement: the student has still heard nothing.
      await staff(ctx, tenant, noted.id, 'notes', { note: 'Trying to reach them' });
      const { rows } = await ctx.db.query<{ id: string; first_response_at: Date | null }>(
        'SELECT id, first_response_at FROM help_requests WHERE institution_id = $1',
        [tenant.institutionId],
      );
      const first = new Map(rows.map((r) => [r.id, r.first_response_at]));
      for (const id of [assigned.id, moved.id, synced.id])
        assert.equal(first.get(id)?.getTime(), clock.now().getTime(), 'stamped with the change’s time');
      assert.equal(first.get(noted.id), null);
      assert.equal(first.get(normal.id), null);

      clock.advance(30 * MINUTE);
      const round = await workerFor(tenant).runOnce();
      assert.equal(round.escalated, 1, 'only the crisis request with nothing but a note');
      const escalated = await ctx.db.query<{ help_request_id: string }>(
        'SELECT help_request_id FROM help_request_escalations WHERE institution_id = $1',
        [tenant.institutionId],
      );
      assert.deepEqual(
        escalated.rows.map((r) => r.help_request_id),
        [noted.id],
      );
      // A later change keeps the first acknowledgement's time.
      const before = first.get(moved.id)?.getTime();
      clock.advance(MINUTE);
      await staff(ctx, tenant, moved.id, 'status', { status: 'resolved' });
      const again = await ctx.db.query<{ first_response_at: Date }>(
        'SELECT first_response_at FROM help_requests WHERE id = $1',
        [moved.id],
      );
      assert.equal(again.rows[0].first_response_at.getTime(), before);
    });

    test('the admins’ window and escalation list apply; several workers at once escalate once', async () => {
      const tenant = await seedHelpdesk(ctx);
      await invitePerson(ctx, tenant, { roles: ['admin'] });
      const listed = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'On Call' });
      const put = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/inbox-settings`, {
        targets: { crisis: 10, high: 60, normal: 1440, low: 4320 },
        escalation_minutes: 5,
        escalation_list: [listed.id],
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(
        put.json().escalation_list.map((p: { id: string }) => p.id),
        [listed.id],
      );
      const requests = await Promise.all(
        [1, 2, 3].map(() => createHelpRequest(ctx, tenant, { priority: 'crisis' })),
      );
      clock.advance(5 * MINUTE);
      const workers = [1, 2, 3, 4].map(() => workerFor(tenant));
      const rounds = await Promise.all(workers.map((w) => w.runOnce()));
      assert.equal(
        rounds.reduce((sum, r) => sum + r.escalated, 0),
        3,
        'each request escalated by exactly one worker',
      );
      assert.deepEqual(await escalationEmails(tenant), [listed.id, listed.id, listed.id]);
      for (const request of requests) {
        const entries = (await timeline(tenant, request.id)).filter((e) => e.action === 'escalated');
        assert.equal(entries.length, 1);
        assert.match(entries[0].note ?? '', /within 5 minutes.*the escalation list \(1 person\)/);
      }
      const mails = smtp.received.length;
      await mailerFor(tenant).runOnce();
      const [mail] = (await smtp.waitFor(mails + 3, 10_000)).slice(mails);
      assert.match(mail.text, /an admin of .* put you on the escalation list: .* within 5 minutes/);
    });

    test('settings refuse bad values with every problem named; another institution’s escalations stay apart', async () => {
      const tenant = await seedHelpdesk(ctx);
      const bad = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/inbox-settings`, {
        targets: { crisis: 0, high: 'soon', normal: 10 },
        escalation_minutes: 2000,
        escalation_list: ['not-a-person'],
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error, 'invalid_field');
      assert.deepEqual(
        bad.json().problems.map((p: { field: string }) => p.field),
        ['targets.low', 'targets.high', 'targets.crisis', 'escalation_minutes'],
      );
      const got = await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/inbox-settings`);
      assert.deepEqual(got.json(), {
        targets: { crisis: 15, high: 240, normal: 2880, low: 7200 },
        escalation_minutes: 15,
        escalation_list: [],
      });

      const other = await seedHelpdesk(ctx);
      await createHelpRequest(ctx, other, { priority: 'crisis' });
      clock.advance(20 * MINUTE);
      await workerFor(other).runOnce();
      const browser = await personBrowser(ctx, tenant, { roles: ['staff'] });
      assert.doesNotMatch(
        (await browser.request('GET', `/console/${tenant.slug}/inbox`)).body,
        /escalation-banner/,
      );
    });
  });
}
