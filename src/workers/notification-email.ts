// Notification email worker: every `pollMs` (2 s by default, so an email leaves well within a
// minute of the request) it claims due outbox rows under a lease
// (src/domain/notifications/queries.ts, FOR UPDATE SKIP LOCKED) and sends and records each
// (src/domain/notifications/outbox.ts) if it still holds the lease.
//
// Any number of workers, in one process or many, share the outbox: a row is claimed by one worker
// at a time, so in normal operation no email is sent twice. A worker that dies after the server
// accepted a message but before recording it leaves the row to fall due when its lease ends, and
// the email is sent again (at least once; the Message-ID is the same, so mail clients may fold the
// two). Without SMTP configured, each round marks the due rows skipped instead (docs/notifications.md).
//
// Cost: an idle round is one indexed query (the due index holds pending rows only); a busy round
// one claim for up to `batchSize` rows, then one UPDATE per email by primary key.

import type { Db } from '../db/db.ts';
import type { Deps } from '../domain/deps.ts';
import { createMailer, type Mailer } from '../domain/notifications/mailer.ts';
import { type SendOutcome, sendNotification, tidyOutbox } from '../domain/notifications/outbox.ts';
import { type ClaimedNotification, claimDue, skipDue } from '../domain/notifications/queries.ts';
import { defaultRetryPolicy, type RetryPolicy } from '../domain/notifications/retry.ts';
import type { Clock } from '../lib/clock.ts';
import { workerJob } from '../lib/telemetry/jobs.ts';
import { type WorkerLogger, workerLoop } from './worker-loop.ts';

export type NotificationWorkerLogger = WorkerLogger;

export interface NotificationWorkerOptions {
  db: Db;
  clock: Clock;
  /** SMTP settings; undefined: email is off and due rows are skipped. */
  smtp: { url: string; from: string } | undefined;
  /** Where links in emails point. */
  publicBaseUrl: string;
  logger?: NotificationWorkerLogger;
  /** Sleep between rounds when nothing was due. */
  pollMs?: number;
  /** Most rows claimed (and emails sent at once) per round. */
  batchSize?: number;
  /** A claimed row not recorded within this long falls due again. */
  leaseMs?: number;
  retry?: Partial<RetryPolicy>;
  random?: () => number;
  /** Only these institutions' notifications (tests; dedicated workers). */
  institutionIds?: string[];
  /** Finished rows are deleted this long after they were queued. */
  retentionMs?: number;
}

export interface NotificationRound {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  skipped: number;
}

export const EMAIL_OFF_REASON = 'email is off: SMTP_URL is not set';
const PRUNE_EVERY_MS = 3_600_000;

/** The worker a process runs (`ssp serve`, `ssp worker`): email is on when SMTP_URL is set. */
export function processNotificationWorker(
  { db, clock, config }: Pick<Deps, 'db' | 'clock' | 'config'>,
  logger: NotificationWorkerLogger,
) {
  return createNotificationWorker({
    db,
    clock,
    logger,
    smtp: config.smtpUrl ? { url: config.smtpUrl, from: config.smtpFrom } : undefined,
    publicBaseUrl: config.publicBaseUrl,
  });
}

export function createNotificationWorker(options: NotificationWorkerOptions) {
  const { db, clock, smtp } = options;
  const log = options.logger;
  const batchSize = options.batchSize ?? 10;
  const leaseMs = options.leaseMs ?? 120_000;
  const retentionMs = options.retentionMs ?? 30 * 24 * 3_600_000;
  const retry: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const institutionIds = options.institutionIds ?? null;
  let mailer: Mailer | undefined;
  let lastPrune = 0;

  /** Sends one row's email; counts and logs what came of it (its state is the metrics' label). */
  async function deliver(row: ClaimedNotification, round: NotificationRound) {
    mailer ??= createMailer(smtp?.url ?? '', smtp?.from ?? '');
    const sending = { mailer, publicBaseUrl: options.publicBaseUrl, retry, random: options.random };
    const outcome: SendOutcome = await sendNotification({ db, clock }, row, sending);
    round[outcome.state]++;
    if (outcome.state === 'failed')
      log?.warn({ notification_id: row.id, reason: outcome.reason }, 'notification email failed');
    return outcome.state;
  }

  /** Hourly upkeep of the outbox; a failure is tried again an hour later. */
  async function upkeep(now: Date): Promise<void> {
    if (now.getTime() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now.getTime();
    await tidyOutbox(db, new Date(now.getTime() - retentionMs)).catch((error) =>
      log?.warn({ err: error }, 'notification outbox upkeep failed; tried again in an hour'),
    );
  }

  /** One round: skip (email off) or claim, send and record what is due now. */
  async function runOnce(): Promise<NotificationRound> {
    const round: NotificationRound = { claimed: 0, sent: 0, retried: 0, failed: 0, skipped: 0 };
    const now = clock.now();
    await upkeep(now);
    if (!smtp) {
      round.skipped = await skipDue(db, { now, reason: EMAIL_OFF_REASON, institutionIds });
      return round;
    }
    const claimed = await claimDue(db, { now, limit: batchSize, leaseMs, institutionIds });
    round.claimed = claimed.length;
    await Promise.all(
      claimed.map((row) =>
        workerJob('notifications', () => deliver(row, round), {
          attributes: { 'ssp.notification_id': row.id },
          outcome: (state) => state,
        }).catch((error) => {
          // Recording failed (database unavailable): the lease ends and the row falls due again.
          log?.error({ err: error, notification_id: row.id }, 'recording a notification failed');
        }),
      ),
    );
    return round;
  }

  // A full batch: more may be due, claim again at once.
  const loop = workerLoop('notification worker', log, runOnce, {
    full: (claimed) => claimed >= batchSize,
    pollMs: options.pollMs ?? 2_000,
    failed: 'claiming notifications failed',
    startFields: { email: smtp ? 'on' : 'off' },
  });

  return {
    runOnce,
    /** Whether emails are sent (SMTP configured). */
    enabled: Boolean(smtp),
    start: loop.start,
    /** Stops claiming and waits for the emails in flight (at most `stopWaitMs`). */
    async stop(stopWaitMs?: number): Promise<void> {
      await loop.stop(stopWaitMs);
      mailer?.close();
      mailer = undefined;
    },
  };
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;
