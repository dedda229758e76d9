// An app that sends its notification emails to a test SMTP server, for the tests of what is
// mailed: both started before a suite's tests and closed after them.
import { after, before } from 'node:test';
import type { Clock } from '../../src/lib/clock.ts';
import { createNotificationWorker } from '../../src/workers/notification-email.ts';
import { type SeededTenant, startTestApp, type TestContext } from './app.ts';
import type { DatabaseKind } from './db.ts';
import { startSmtpServer, type TestSmtpServer } from './smtp.ts';

export const MAIL_FROM = 'Student support <support@notify.example.edu>';
/** The public address the emails' links start with. */
export const MAIL_BASE = 'https://support.example.edu';

/** Starts the SMTP server, then the app mailing through it; `started` receives both. */
export function withMailApp(
  kind: DatabaseKind,
  options: { clock?: Clock },
  started: (app: { ctx: TestContext; smtp: TestSmtpServer }) => void,
): void {
  let ctx: TestContext | undefined;
  let smtp: TestSmtpServer | undefined;
  before(async () => {
    smtp = await startSmtpServer();
    ctx = await startTestApp(kind, {
      clock: options.clock,
      config: { smtpUrl: smtp.url, smtpFrom: MAIL_FROM, publicBaseUrl: MAIL_BASE },
    });
    started({ ctx, smtp });
  });
  after(async () => {
    await ctx?.close();
    await smtp?.close();
  });
}

/** The notification worker for one tenant, sending through `smtp` with the app's address. */
export function notificationWorker(
  ctx: TestContext,
  smtp: TestSmtpServer,
  tenant: SeededTenant,
  options: Omit<Partial<Parameters<typeof createNotificationWorker>[0]>, 'db'> & { clock: Clock },
) {
  return createNotificationWorker({
    db: ctx.db,
    smtp: { url: smtp.url, from: MAIL_FROM },
    publicBaseUrl: MAIL_BASE,
    institutionIds: [tenant.institutionId],
    ...options,
  });
}
