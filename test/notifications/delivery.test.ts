// Notification emails end to end against a real SMTP server started here (smtp-server, parsed with
// mailparser): who is told (crisis recipients, opt-ins, never another institution's people), what
// the email says (a link, nothing sensitive in the subject or body), retries after a temporary
// refusal, failure after the last attempt, several workers sharing the outbox, and email off.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { assign } from '../../src/domain/helpdesk/staff-changes.ts';
import {
  recentNotifications,
  setCrisisRecipients,
  setOwnSettings,
} from '../../src/domain/notifications/settings.ts';
import {
  type createNotificationWorker,
  EMAIL_OFF_REASON,
  processNotificationWorker,
} from '../../src/workers/notification-email.ts';
import { type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { seedStudents } from '../helpers/helpdesk.ts';
import { notificationWorker, withMailApp } from '../helpers/mail-app.ts';
import { invitePerson } from '../helpers/people.ts';
import type { TestSmtpServer } from '../helpers/smtp.ts';

const SUMMARY = 'I cannot cope any more, please help';

let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };

for (const kind of databaseKinds()) {
  describe(`notification emails [${kind}]`, () => {
    let ctx: TestContext;
    let smtp: TestSmtpServer;
    withMailApp(kind, { clock }, (app) => {
      ({ ctx, smtp } = app);
    });

    const workerFor = (
      tenant: SeededTenant,
      extra: Partial<Parameters<typeof createNotificationWorker>[0]> = {},
    ) => notificationWorker(ctx, smtp, tenant, { clock, random: () => 0.5, ...extra });

    /** A tenant with a student (named) and people: two crisis recipients, one opted in to all, one not. */
    async function tenantWithPeople() {
      const tenant = await seedTenant(ctx);
      const [studentId] = await seedStudents(ctx, tenant, 1);
      await ctx.db.query(`UPDATE students SET first_name = 'Zephyrine', last_name = 'Quark' WHERE id = $1`, [
        studentId,
      ]);
      const chosen = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Chosen One' });
      const admin = await invitePerson(ctx, tenant, { roles: ['admin'], name: 'Ada Admin' });
      const eager = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Eager Beaver' });
      const quiet = await invitePerson(ctx, tenant, { roles: ['staff'], name: 'Quiet Person' });
      const put = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/notification-recipients`, {
        crisis_recipients: [chosen.id, admin.id],
      });
      assert.equal(put.statusCode, 200, put.body);
      await setOwnSettings(ctx.deps, tenant.institutionId, eager.id, {
        any_new_request: true,
        assigned_to_me: false,
      });
      await setOwnSettings(ctx.deps, tenant.institutionId, quiet.id, {
        any_new_request: false,
        assigned_to_me: true,
      });
      return { tenant, studentId, chosen, admin, eager, quiet };
    }

    const mailTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

    test('the running worker (as `ssp serve` starts it) delivers a crisis email within seconds', async () => {
      const t = await tenantWithPeople();
      const before = smtp.received.length;
      const quiet = { info() {}, warn() {}, error() {} };
      const worker = processNotificationWorker(ctx.deps, quiet);
      worker.start();
      try {
        const started = Date.now();
        await createHelpRequest(ctx.deps, t.tenant.institutionId, {
          studentId: t.studentId,
          priority: 'crisis',
        });
        const ours = (await smtp.waitFor(before + 3, 15_000)).slice(before);
        assert.ok(Date.now() - started < 15_000);
        assert.deepEqual(
          ours.map((m) => m.to[0]).sort(),
          [t.chosen.email, t.admin.email, t.eager.email].sort(),
        );
      } finally {
        await worker.stop();
      }
    });

    test("an archived institution's emails are not attempted: they wait, pending, and go on restore", async () => {
      const t = await tenantWithPeople();
      const before = smtp.received.length;
      await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        priority: 'crisis',
      });
      const base = `/admin/v1/institutions/${t.tenant.slug}`;
      assert.equal((await ctx.admin('POST', `${base}/archive`)).statusCode, 200);
      const worker = workerFor(t.tenant);
      assert.equal((await worker.runOnce()).claimed, 0, 'nothing claimed while archived (docs/archiving.md)');
      assert.equal(smtp.received.length, before);
      const { rows } = await ctx.db.query<{ state: string; attempts: number }>(
        'SELECT state, attempts FROM notifications WHERE institution_id = $1',
        [t.tenant.institutionId],
      );
      assert.deepEqual(
        rows.map((r) => `${r.state}/${r.attempts}`),
        ['pending/0', 'pending/0', 'pending/0'],
      );
      assert.equal((await ctx.admin('POST', `${base}/restore`)).statusCode, 200);
      assert.deepEqual(await worker.runOnce(), { claimed: 3, sent: 3, retried: 0, failed: 0, skipped: 0 });
      await smtp.waitFor(before + 3);
    });

    test('a crisis request reaches the chosen people and the opted-in, with a link and nothing sensitive', async () => {
      const t = await tenantWithPeople();
      // Another institution with its own crisis recipient: never told of this one's requests.
      const other = await tenantWithPeople();
      const before = smtp.received.length;
      const created = await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        priority: 'crisis',
        summary: SUMMARY,
      });
      const round = await workerFor(t.tenant).runOnce();
      assert.deepEqual(round, { claimed: 3, sent: 3, retried: 0, failed: 0, skipped: 0 });
      const mails = await smtp.waitFor(before + 3);
      const ours = mails.slice(before);
      assert.deepEqual(
        ours.map((m) => m.to[0]).sort(),
        [t.chosen.email, t.admin.email, t.eager.email].sort(),
      );
      assert.equal(mailTo(t.quiet.email).length, 0);
      for (const person of [other.chosen, other.admin, other.eager, other.quiet])
        assert.equal(mailTo(person.email).length, 0);
      for (const mail of ours) {
        assert.equal(mail.subject, `New crisis request at Institution ${t.tenant.slug}`);
        assert.equal(mail.parsed.from?.value[0]?.address, 'support@notify.example.edu');
        assert.ok(
          mail.text.includes(`https://support.example.edu/console/${t.tenant.slug}/inbox/${created.id}`),
          mail.text,
        );
        assert.match(mail.text, /Priority: Crisis/);
        for (const secret of ['Zephyrine', 'Quark', 'cope', SUMMARY]) {
          assert.ok(!mail.subject.includes(secret), `subject names ${secret}`);
          assert.ok(!mail.text.includes(secret), `body names ${secret}`);
          assert.ok(!mail.html.includes(secret), `html names ${secret}`);
        }
      }
      const recent = await recentNotifications(ctx.deps.db, t.tenant.institutionId);
      assert.deepEqual(
        recent.map((n) => [n.state, n.reason, n.attempts]),
        [
          ['sent', 'crisis', 1],
          ['sent', 'crisis', 1],
          ['sent', 'crisis', 1],
        ],
      );
      // Sent once: another round finds nothing.
      assert.equal((await workerFor(t.tenant).runOnce()).claimed, 0);
    });

    test('opt-ins: a normal request tells only those who asked; an assignment tells the assignee who asked', async () => {
      const t = await tenantWithPeople();
      const before = smtp.received.length;
      const created = await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        summary: 'Question about my timetable',
      });
      // Assigned to Quiet Person (asked for assignments) by someone else, then to Chosen One (did not).
      await assign(ctx.deps, t.tenant.institutionId, created.id, {
        assignee: { id: t.quiet.id },
        staff: 'Ada Admin',
      });
      await assign(ctx.deps, t.tenant.institutionId, created.id, {
        assignee: { id: t.chosen.id },
        staff: 'Ada Admin',
      });
      // Quiet Person assigns it to themselves: no email about their own action.
      await assign(ctx.deps, t.tenant.institutionId, created.id, {
        assignee: { id: t.quiet.id },
        staff: 'Quiet Person',
      });
      const round = await workerFor(t.tenant).runOnce();
      assert.equal(round.sent, 2);
      const ours = (await smtp.waitFor(before + 2)).slice(before);
      const byTo = Object.fromEntries(ours.map((m) => [m.to[0], m.subject]));
      assert.deepEqual(byTo, {
        [t.eager.email]: `New help request at Institution ${t.tenant.slug}`,
        [t.quiet.email]: `A help request was assigned to you at Institution ${t.tenant.slug}`,
      });
    });

    test('a temporary refusal (451) is retried with backoff and then delivered once', async () => {
      const t = await tenantWithPeople();
      await setCrisisRecipients(ctx.deps, t.tenant.institutionId, [t.chosen.id]);
      await setOwnSettings(ctx.deps, t.tenant.institutionId, t.eager.id, {
        any_new_request: false,
        assigned_to_me: false,
      });
      let refusals = 1;
      smtp.refuse = (to) => (to.includes(t.chosen.email) && refusals-- > 0 ? 451 : undefined);
      try {
        const before = smtp.received.length;
        await createHelpRequest(ctx.deps, t.tenant.institutionId, {
          studentId: t.studentId,
          priority: 'crisis',
        });
        const worker = workerFor(t.tenant);
        assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, failed: 0, skipped: 0 });
        const [pending] = await recentNotifications(ctx.deps.db, t.tenant.institutionId);
        assert.equal(pending.state, 'pending');
        assert.match(pending.last_error ?? '', /451/);
        // Not due before its backoff (30 s for the first retry).
        assert.equal((await worker.runOnce()).claimed, 0);
        offset += 31_000;
        assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, failed: 0, skipped: 0 });
        await smtp.waitFor(before + 1);
        assert.equal(mailTo(t.chosen.email).length, 1);
        const [sent] = await recentNotifications(ctx.deps.db, t.tenant.institutionId);
        assert.deepEqual([sent.state, sent.attempts], ['sent', 2]);
      } finally {
        smtp.refuse = undefined;
      }
    });

    test('after the last attempt the notification is failed with the reason, visible to admins', async () => {
      const t = await tenantWithPeople();
      await setCrisisRecipients(ctx.deps, t.tenant.institutionId, [t.admin.id]);
      smtp.refuse = (to) => (to.includes(t.admin.email) ? 451 : undefined);
      try {
        await createHelpRequest(ctx.deps, t.tenant.institutionId, {
          studentId: t.studentId,
          priority: 'crisis',
        });
        const worker = workerFor(t.tenant, { retry: { maxAttempts: 3, firstRetryMs: 1_000 } });
        const rounds = [];
        for (let i = 0; i < 3; i++) {
          rounds.push(await worker.runOnce());
          offset += 10_000;
        }
        assert.deepEqual(
          rounds.map((r) => [r.retried, r.failed]),
          [
            [1, 0],
            [1, 0],
            [0, 1],
          ],
        );
        const failed = await ctx.admin(
          'GET',
          `/admin/v1/institutions/${t.tenant.slug}/notifications?state=failed`,
        );
        assert.equal(failed.statusCode, 200, failed.body);
        const [row] = failed.json().items;
        assert.equal(row.state, 'failed');
        assert.equal(row.attempts, 3);
        assert.match(row.last_error, /^gave up after 3 attempts: .*451/);
        assert.equal(row.person.email, t.admin.email);
        assert.equal(mailTo(t.admin.email).length, 0);
      } finally {
        smtp.refuse = undefined;
      }
    });

    test('two workers share the outbox: every email is sent exactly once', async () => {
      const t = await tenantWithPeople();
      const before = smtp.received.length;
      for (let i = 0; i < 4; i++)
        await createHelpRequest(ctx.deps, t.tenant.institutionId, {
          studentId: t.studentId,
          priority: 'crisis',
        });
      const a = workerFor(t.tenant, { batchSize: 5 });
      const b = workerFor(t.tenant, { batchSize: 5 });
      const rounds = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
      assert.equal(
        rounds.reduce((sum, r) => sum + r.sent, 0),
        12,
      );
      const ours = (await smtp.waitFor(before + 12)).slice(before);
      assert.equal(new Set(ours.map((m) => m.messageId)).size, 12);
    });

    test('with email off, due notifications are marked skipped, not kept to be sent late', async () => {
      const t = await tenantWithPeople();
      await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        priority: 'crisis',
      });
      const round = await workerFor(t.tenant, { smtp: undefined }).runOnce();
      assert.equal(round.skipped, 3);
      const recent = await recentNotifications(ctx.deps.db, t.tenant.institutionId);
      assert.deepEqual(
        recent.map((n) => [n.state, n.last_error]),
        Array(3).fill(['skipped', EMAIL_OFF_REASON]),
      );
    });

    test('a removed person is not told', async () => {
      const t = await tenantWithPeople();
      const removed = await ctx.admin(
        'DELETE',
        `/admin/v1/institutions/${t.tenant.slug}/people/${t.chosen.id}`,
      );
      assert.ok(removed.statusCode < 300, removed.body);
      await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        priority: 'crisis',
      });
      const recent = await recentNotifications(ctx.deps.db, t.tenant.institutionId);
      assert.deepEqual(recent.map((n) => n.person_id).sort(), [t.admin.id, t.eager.id].sort());
    });

    // Last: the prune is not scoped to an institution.
    test('finished notifications are deleted after their retention; pending ones are kept', async () => {
      const t = await tenantWithPeople();
      await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        priority: 'crisis',
      });
      await workerFor(t.tenant).runOnce();
      await createHelpRequest(ctx.deps, t.tenant.institutionId, {
        studentId: t.studentId,
        priority: 'crisis',
      });
      offset += 1_000;
      // A new worker prunes on its first round: everything finished before now, nothing pending.
      const round = await workerFor(t.tenant, { retentionMs: 0, smtp: undefined }).runOnce();
      assert.equal(round.skipped, 3);
      const recent = await recentNotifications(ctx.deps.db, t.tenant.institutionId);
      assert.deepEqual(
        recent.map((n) => n.state),
        ['skipped', 'skipped', 'skipped'],
      );
    });
  });
}
